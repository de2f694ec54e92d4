package io.tandem.core.config;

import io.tandem.core.codec.CodecKind;
import io.tandem.core.codec.CodecLimits;
import io.tandem.core.codec.KryoFieldEncoding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Builds a {@link ReplicationConfig} from attribute strings as they appear on the {@code <Manager>} element. Unset
 * attributes keep their defaults; every bad value and every unknown attribute is reported at once.
 */
public final class ReplicationConfigParser {
  /** The attribute names this parser understands. */
  public static final Set<String> ATTRIBUTES =
      Set.of(
          "scope", "mode", "ackTimeout", "settleTimeout", "codec", "kryoFieldSerializer", "allowedClasses",
          "maxValueSize", "maxFrameSize",
          "maxSessionSize", "maxBackupBytes", "mutationPolicy", "immutableClasses", "verifyMutations", "touchLagCap",
          "asyncQueueCapacity", "stateTransferRate", "stateTransferBatchSize", "tombstoneTtl", "orphanGrace",
          "maintenanceInterval", "pauseThreshold");

  private ReplicationConfigParser() {}

  public static ReplicationConfig parse(Map<String, String> attributes) {
    List<String> violations = new ArrayList<>();
    ReplicationConfig.Builder b = ReplicationConfig.builder();
    CodecLimits defaults = CodecLimits.defaults();
    int[] maxValueSize = {defaults.maxValueBytes()};
    for (Map.Entry<String, String> e : attributes.entrySet()) {
      String name = e.getKey();
      String value = e.getValue();
      if (value == null) {
        continue;
      }
      switch (name) {
        case "scope" -> parse(violations, name, value, v -> enumValue(ReplicationScope.class, v), b::scope);
        case "mode" -> parse(violations, name, value, v -> enumValue(ReplicationMode.class, v), b::mode);
        case "ackTimeout" -> parse(violations, name, value, Units::parseDuration, b::ackTimeout);
        case "settleTimeout" -> parse(violations, name, value, Units::parseDuration, b::settleTimeout);
        case "codec" -> parse(violations, name, value, CodecKind::parse, b::codec);
        case "kryoFieldSerializer" -> parse(violations, name, value, KryoFieldEncoding::parse, b::kryoFieldEncoding);
        case "allowedClasses" -> b.allowedClasses(list(value));
        case "maxValueSize" -> parse(violations, name, value, v -> toInt(Units.parseSize(v)), v -> maxValueSize[0] = v);
        case "maxFrameSize" -> parse(violations, name, value, v -> toInt(Units.parseSize(v)), b::maxFrameSize);
        case "maxSessionSize" -> parse(violations, name, value, v -> toInt(Units.parseSize(v)), b::maxSessionSize);
        case "maxBackupBytes" -> parse(violations, name, value, Units::parseSize, b::maxBackupBytes);
        case "mutationPolicy" -> parse(violations, name, value, v -> enumValue(MutationPolicy.class, v), b::mutationPolicy);
        case "immutableClasses" -> b.immutableClasses(list(value));
        case "verifyMutations" -> parse(violations, name, value, ReplicationConfigParser::bool, b::verifyMutations);
        case "touchLagCap" -> parse(violations, name, value, Units::parseDuration, b::touchLagCap);
        case "asyncQueueCapacity" -> parse(violations, name, value, Integer::parseInt, b::asyncQueueCapacity);
        case "stateTransferRate" -> parse(violations, name, value, Units::parseSize, b::stateTransferBytesPerSecond);
        case "stateTransferBatchSize" -> parse(violations, name, value, v -> toInt(Units.parseSize(v)), b::stateTransferBatchBytes);
        case "tombstoneTtl" -> parse(violations, name, value, Units::parseDuration, b::tombstoneTtl);
        case "orphanGrace" -> parse(violations, name, value, Units::parseDuration, b::orphanGrace);
        case "maintenanceInterval" -> parse(violations, name, value, Units::parseDuration, b::maintenanceInterval);
        case "pauseThreshold" -> parse(violations, name, value, Units::parseDuration, b::pauseThreshold);
        default -> violations.add(name + ": unknown attribute; known attributes are " + new TreeSet<>(ATTRIBUTES));
      }
    }
    if (maxValueSize[0] < 1) {
      violations.add("maxValueSize: " + maxValueSize[0] + " must be positive");
    } else {
      b.codecLimits(new CodecLimits(maxValueSize[0], defaults.maxDepth(), defaults.maxCollectionSize()));
    }
    try {
      ReplicationConfig config = b.build();
      if (violations.isEmpty()) {
        return config;
      }
    } catch (InvalidConfigurationException e) {
      violations.addAll(e.violations());
    }
    throw new InvalidConfigurationException(violations);
  }

  private static <T> void parse(
      List<String> violations, String name, String value, Function<String, T> parser, java.util.function.Consumer<T> sink) {
    try {
      sink.accept(parser.apply(value));
    } catch (RuntimeException e) {
      violations.add(name + ": '" + value + "' is not valid: " + e.getMessage());
    }
  }

  private static <E extends Enum<E>> E enumValue(Class<E> type, String text) {
    String normalized = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (E constant : type.getEnumConstants()) {
      if (constant.name().equals(normalized)) {
        return constant;
      }
    }
    throw new IllegalArgumentException("expected one of " + Arrays.toString(type.getEnumConstants()));
  }

  private static boolean bool(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("expected true or false");
    };
  }

  private static int toInt(long value) {
    if (value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("must be below 2GiB");
    }
    return (int) value;
  }

  private static List<String> list(String text) {
    return Arrays.stream(text.split("[,\\s]+")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

}
