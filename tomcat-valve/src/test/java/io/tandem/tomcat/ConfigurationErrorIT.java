package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bad {@code <Manager>} attribute stops the context with a message naming the attribute, value and what is allowed. */
class ConfigurationErrorIT {
  @TempDir Path work;

  @Test
  void badValues_stopTheContext_namingEveryAttribute() {
    List<String> errors = errorsOfStarting("scope=\"EVERYTHING\" ackTimeout=\"500\" sharedSecret=\"short\""
        + " transportPort=\"99999\" membershipPort=\"5701\" members=\"127.0.0.1:5701\" colour=\"blue\"");

    assertThat(errors).anySatisfy(message -> assertThat(message)
        .contains("Invalid Tandem configuration")
        .contains("scope: 'EVERYTHING'")
        .contains("ackTimeout: '500'")
        .contains("sharedSecret: must be at least 16 bytes")
        .contains("transportPort: '99999'")
        .contains("colour: unknown attribute"));
  }

  @Test
  void kryoFieldSerializerUnknown_stopsTheContext_namingTheAllowedValues() {
    List<String> errors = errorsOfStarting("kryoFieldSerializer=\"tagged\" sharedSecret=\"integration-test-secret-123\""
        + " transportPort=\"4100\" membershipPort=\"5701\" members=\"127.0.0.1:5701\"");

    assertThat(errors).anySatisfy(message -> assertThat(message)
        .contains("Invalid Tandem configuration")
        .contains("kryoFieldSerializer: 'tagged' is not valid: unknown Kryo field serializer 'tagged': allowed values are"
            + " compatible, fast"));
  }

  @Test
  void kubernetesDiscoveryWithMembersAndNoService_stopsTheContext_namingBoth() {
    List<String> errors = errorsOfStarting("discovery=\"kubernetes\" sharedSecret=\"integration-test-secret-123\""
        + " transportPort=\"4100\" membershipPort=\"5701\" members=\"127.0.0.1:5701\"");

    assertThat(errors).anySatisfy(message -> assertThat(message)
        .contains("Invalid Tandem configuration")
        .contains("members: '127.0.0.1:5701' is not used with discovery=\"kubernetes\"")
        .contains("discovery: \"kubernetes\" needs kubernetesServiceDns"));
  }

  /** What TandemManager logged when a context with these attributes refused to start. */
  private List<String> errorsOfStarting(String managerAttributes) {
    List<String> errors = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        errors.add(String.valueOf(record.getMessage()));
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger logger = Logger.getLogger(TandemManager.class.getName());
    logger.addHandler(capture);
    try {
      assertThatThrownBy(() -> new TomcatNode(work, "bad", managerAttributes).close())
          .isInstanceOf(IllegalStateException.class);
    } finally {
      logger.removeHandler(capture);
    }
    return errors;
  }
}
