package io.tandem.benchmarks.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.ring.BuddyRing;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whose code a sample is, on a real JFR recording of this JVM: threads named as Tomcat names its request threads,
 * one running Tandem's code (the buddy ring, over JDK collections), one running only JDK code for a caller that is not
 * Tandem's, and one of Tandem's transport threads running anything.
 */
class FrameSharesTest {
  @TempDir Path work;

  @Test
  void samples_areTandemsWhenItsCodeIsTheFirstOwnFrame_orOnItsThreads_notWhenItsValveIsOnlyFurtherDown() throws Exception {
    Path file = work.resolve("node.jfr");
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> busy = List.of(
        new Thread(() -> spin(stop, FrameSharesTest::tandemWork), "http-nio-8080-exec-1"),
        new Thread(() -> spin(stop, FrameSharesTest::jdkWork), "http-nio-8080-exec-2"),
        new Thread(() -> spin(stop, FrameSharesTest::jdkWork), "grizzly-nio-kernel(1) SelectorRunner"));
    Instant started;
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.start();
      started = Instant.now();
      busy.forEach(Thread::start);
      Thread.sleep(1500);
      stop.set(true);
      for (Thread thread : busy) {
        thread.join();
      }
      recording.stop();
      recording.dump(file);
    }

    FrameShares shares = FrameShares.of(file, null, null);

    FrameShares.GroupSamples requests = shares.groups().get(ThreadGroups.REQUEST_THREADS);
    FrameShares.GroupSamples transport = shares.groups().get(ThreadGroups.TANDEM_TRANSPORT);
    assertThat(requests.samples()).isGreaterThan(10);
    assertThat(requests.tandem()).as("the thread in Tandem's ring code").isGreaterThan(0)
        .as("not the thread whose only own frames are the test's").isLessThan(requests.samples());
    assertThat(transport.samples()).isGreaterThan(0);
    assertThat(transport.tandem()).as("every sample of Tandem's transport threads").isEqualTo(transport.samples());
    assertThat(shares.topTandemFrames()).isNotEmpty();
    assertThat(FrameShares.of(file, started.plusSeconds(3600), null).all().samples()).as("a window after the run")
        .isZero();
  }

  @Test
  void ownClasses_andCalledCode_areToldApart() {
    assertThat(FrameShares.isTandemClass("io.tandem.core.replicator.OwnerWrites")).isTrue();
    assertThat(FrameShares.isTandemClass("io.tandem.tomcat.TandemValve")).isTrue();
    assertThat(FrameShares.isTandemClass("io.tandem.shaded.com.esotericsoftware.kryo.Kryo")).isFalse();
    assertThat(FrameShares.isTandemClass("io.tandem.benchmarks.capacity.FrameShares")).isFalse();
    assertThat(FrameShares.isTandemClass("org.apache.catalina.core.StandardWrapperValve")).isFalse();
    assertThat(FrameShares.isCalledCode("java.util.HashMap")).isTrue();
    assertThat(FrameShares.isCalledCode("io.tandem.shaded.org.glassfish.grizzly.nio.SelectorRunner")).isTrue();
    assertThat(FrameShares.isCalledCode("org.apache.jsp.session_jsp")).isFalse();
  }

  @Test
  void commandLine_refusesAMissingRecording_inOneLine() {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      assertThat(FramesMain.execute("--frames", work.resolve("none.jfr").toString())).isEqualTo(2);
    } finally {
      System.setErr(err);
    }
    assertThat(captured.toString(StandardCharsets.UTF_8)).contains("none.jfr", "is not a file").hasLineCount(1);
  }

  private static void spin(AtomicBoolean stop, Runnable work) {
    while (!stop.get()) {
      work.run();
    }
  }

  private static volatile Object sink;

  /** Tandem's buddy ring over a view of 64 members. */
  private static void tandemWork() {
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      members.add(new Member(new NodeId("n" + i), "127.0.0.1:" + (1000 + i)));
    }
    MembershipView view = new MembershipView(1, members);
    for (int i = 0; i < 64; i++) {
      sink = BuddyRing.buddyOf(view, new NodeId("n" + i));
    }
  }

  /** JDK code only, called by this test. */
  private static void jdkWork() {
    TreeMap<String, Integer> map = new TreeMap<>();
    for (int i = 0; i < 200; i++) {
      map.put("k" + i, i);
    }
    sink = map;
  }
}
