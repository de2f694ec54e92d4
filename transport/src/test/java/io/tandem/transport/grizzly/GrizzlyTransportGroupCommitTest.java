package io.tandem.transport.grizzly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.spi.Member;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.PeerUnreachableException;
import io.tandem.core.spi.RequestHandler;
import io.tandem.core.wire.Envelope;
import io.tandem.core.wire.Message;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit and cumulative acknowledgements over real sockets. The buddy is mostly a {@link RawPeer} the test
 * scripts, so that what it answers, and when, is exact; one test runs two real transports end to end.
 */
class GrizzlyTransportGroupCommitTest {
  private static final String CLUSTER = "group-commit";
  private static final byte[] SECRET = "group-commit-shared-secret".getBytes(StandardCharsets.UTF_8);
  private static final NodeId OWNER = new NodeId("a-owner");
  private static final NodeId BUDDY = new NodeId("z-buddy");
  private static final RequestHandler NOT_USED = (from, request) -> CompletableFuture.completedFuture(new Message.Ack(0, 0));
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private static Message.SessionDelta delta(long version) {
    return new Message.SessionDelta("s-" + version, 1, version - 1, version, null, Map.of(), Set.of());
  }

  private GrizzlyTransport owner(Duration requestTimeout, LongSupplier clock) throws Exception {
    return owner(requestTimeout, clock, Duration.ZERO);
  }

  private GrizzlyTransport owner(Duration requestTimeout, LongSupplier clock, Duration writeLinger) throws Exception {
    GrizzlyTransportConfig config =
        GrizzlyTransportConfig.loopback(CLUSTER, OWNER, SECRET, requestTimeout).withWriteLinger(writeLinger);
    GrizzlyTransport transport = new GrizzlyTransport(config, new RateLimitedLog(System.getLogger("test")), clock);
    toClose.add(transport);
    transport.start(NOT_USED);
    return transport;
  }

  /** A scripted buddy that dialed {@code owner} and proved the secret; the owner may send it requests. */
  private RawPeer buddyOf(GrizzlyTransport owner) throws Exception {
    RawPeer buddy = new RawPeer(owner.localAddress(), BUDDY);
    toClose.add(buddy);
    buddy.authenticate(CLUSTER, SECRET);
    await().atMost(Duration.ofSeconds(5)).until(() -> owner.connectedTo(BUDDY));
    return buddy;
  }

  private static List<CompletableFuture<Message>> send(GrizzlyTransport owner, int count) {
    List<CompletableFuture<Message>> replies = new ArrayList<>();
    for (int version = 1; version <= count; version++) {
      replies.add(owner.requestBatched(BUDDY, delta(version)));
    }
    return replies;
  }

  private static List<Envelope> read(RawPeer buddy, int count) throws Exception {
    List<Envelope> requests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      requests.add(buddy.read());
    }
    return requests;
  }

  @Test
  void aLoneRequestOfAWaitingCaller_isWrittenByThatCaller_withoutWakingTheSelectorThread() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime);
    RawPeer buddy = buddyOf(owner);
    long callerWritesBefore = owner.stats().callerWrites();

    CompletableFuture<Message> reply = owner.request(BUDDY, delta(1));
    Envelope request = buddy.read();

    assertThat(request.message()).isEqualTo(delta(1));
    assertThat(owner.stats().callerWrites() - callerWritesBefore).as("written on the requesting thread").isEqualTo(1);
    buddy.send(new Envelope(request.correlationId(), true, new Message.AckRange(1)));
    assertThat(reply.get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, 1));
  }

  @Test
  void requestsInFlightTogether_shareWrites_andOneRangeAcknowledgesThemAll() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime);
    RawPeer buddy = buddyOf(owner);
    long framesBefore = owner.stats().framesWritten();
    long writesBefore = owner.stats().writes();

    List<CompletableFuture<Message>> replies = send(owner, 200);
    List<Envelope> requests = read(buddy, 200);

    assertThat(requests).extracting(Envelope::correlationId).as("one thread's requests, in order")
        .isEqualTo(java.util.stream.LongStream.rangeClosed(1, 200).boxed().toList());
    long frames = owner.stats().framesWritten() - framesBefore;
    long writes = owner.stats().writes() - writesBefore;
    assertThat(frames).isEqualTo(200);
    assertThat(writes).as("200 frames handed over faster than one flush writes them share writes").isLessThan(frames);
    assertThat(owner.stats().callerWrites()).as("a batched sender leaves its writes to the I/O thread").isZero();

    buddy.send(new Envelope(200, true, new Message.AckRange(200)));

    for (int i = 0; i < 200; i++) {
      assertThat(replies.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, i + 1));
    }
    assertThat(owner.stats().rangeAcks()).isEqualTo(1);
  }

  /**
   * Regression: requests of one application travel in an {@code InContext} (one transport per node for all of them);
   * the range acknowledgement must see through it, or every acknowledgement travels alone.
   */
  @Test
  void requestsOfAContext_areAcknowledgedInRangesToo() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime);
    RequestHandler buddyHandler = (from, request) -> {
      Message.SessionDelta d = (Message.SessionDelta) ((Message.InContext) request).message();
      return CompletableFuture.completedFuture(new Message.Ack(d.epoch(), d.version()));
    };
    GrizzlyTransport buddy = new GrizzlyTransport(GrizzlyTransportConfig.loopback(CLUSTER, BUDDY, SECRET, Duration.ofSeconds(30)));
    toClose.add(buddy);
    buddy.start(buddyHandler);
    MembershipView view = new MembershipView(1, List.of(new Member(OWNER, owner.localAddress()), new Member(BUDDY, buddy.localAddress())));
    owner.updatePeers(view);
    buddy.updatePeers(view);

    List<CompletableFuture<Message>> replies = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      replies.add(owner.requestBatched(BUDDY, new Message.InContext("/shop", delta(i + 1))));
    }

    for (int i = 0; i < 300; i++) {
      assertThat(replies.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, i + 1));
    }
    assertThat(owner.stats().rangeAcks()).as("acknowledgements of a context's requests travelled in ranges").isPositive();
  }

  @Test
  void aRefusalInTheMiddleOfABatch_reachesOnlyItsRequest() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime);
    RawPeer buddy = buddyOf(owner);
    List<CompletableFuture<Message>> replies = send(owner, 10);
    read(buddy, 10);

    Message.Nack gap = new Message.Nack(Message.Nack.Reason.GAP, 1, 3, "backup is at version 3");
    buddy.send(new Envelope(4, true, new Message.AckRange(4)));
    buddy.send(new Envelope(5, true, gap));
    buddy.send(new Envelope(10, true, new Message.AckRange(5)));

    for (int i = 0; i < 10; i++) {
      Message expected = i == 4 ? gap : new Message.Ack(1, i + 1);
      assertThat(replies.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(expected);
    }
  }

  @Test
  void aRealBuddy_acknowledgesWhatItAppliedAsSentInRanges_andSendsItsRefusalsAlone() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime);
    // Refuses every fifth update, acknowledges the rest exactly as sent.
    RequestHandler buddyHandler = (from, request) -> {
      Message.SessionDelta d = (Message.SessionDelta) request;
      return CompletableFuture.completedFuture(d.version() % 5 == 0
          ? new Message.Nack(Message.Nack.Reason.GAP, d.epoch(), d.baseVersion() - 1, "gap at " + d.version())
          : new Message.Ack(d.epoch(), d.version()));
    };
    GrizzlyTransport buddy = new GrizzlyTransport(GrizzlyTransportConfig.loopback(CLUSTER, BUDDY, SECRET, Duration.ofSeconds(30)));
    toClose.add(buddy);
    buddy.start(buddyHandler);
    MembershipView view = new MembershipView(1, List.of(new Member(OWNER, owner.localAddress()), new Member(BUDDY, buddy.localAddress())));
    owner.updatePeers(view);
    buddy.updatePeers(view);

    List<CompletableFuture<Message>> replies = send(owner, 500);

    for (int i = 0; i < 500; i++) {
      long version = i + 1;
      Message reply = replies.get(i).get(10, TimeUnit.SECONDS);
      if (version % 5 == 0) {
        assertThat(reply).isInstanceOf(Message.Nack.class).extracting(m -> ((Message.Nack) m).detail()).isEqualTo("gap at " + version);
      } else {
        assertThat(reply).isEqualTo(new Message.Ack(1, version));
      }
    }
    assertThat(owner.stats().rangeAcks()).as("the 400 acks travelled in ranges").isBetween(1L, 400L);
  }

  @Test
  void aConnectionLostWithABatchInFlight_failsEveryWaitingRequestAtOnce() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(60), System::nanoTime);
    RawPeer buddy = buddyOf(owner);
    List<CompletableFuture<Message>> replies = send(owner, 20);
    read(buddy, 20);

    buddy.close();

    for (CompletableFuture<Message> reply : replies) {
      // Well inside the 60 s request timeout: none waits it out.
      assertThat(reply).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(PeerUnreachableException.class);
    }
  }

  @Test
  void anAckForASequenceNeverSent_completesNothing_andTheConnectionGoesOn() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime);
    RawPeer buddy = buddyOf(owner);
    List<CompletableFuture<Message>> replies = send(owner, 3);
    read(buddy, 3);

    buddy.send(new Envelope(1_000, true, new Message.AckRange(1_000)));
    buddy.send(new Envelope(77, true, new Message.Ack(1, 77)));
    await().atMost(Duration.ofSeconds(5)).until(() -> owner.stats().acksForNothingSent() == 2);

    assertThat(replies).noneMatch(CompletableFuture::isDone);
    assertThat(owner.stats().refusals(RefusalCause.REFUSED_FRAME)).isEqualTo(2);

    buddy.send(new Envelope(3, true, new Message.AckRange(3)));
    for (int i = 0; i < 3; i++) {
      assertThat(replies.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, i + 1));
    }
  }

  @Test
  void aRequestUnansweredPastItsTimeout_failsOnTheSweep_measuredOnTheInjectedClock() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    GrizzlyTransport owner = owner(Duration.ofMillis(500), now::get);
    RawPeer buddy = buddyOf(owner);
    CompletableFuture<Message> reply = owner.request(BUDDY, delta(1));
    read(buddy, 1);

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(499));
    owner.sweepNow();
    assertThat(reply).as("1 ms before its deadline").isNotDone();

    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
    owner.sweepNow();
    assertThat(reply).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(TimeoutException.class).withMessageContaining("within 500ms");
    assertThat(owner.stats().requestsTimedOut()).isEqualTo(1);

    buddy.send(new Envelope(1, true, new Message.AckRange(1)));
    CompletableFuture<Message> next = owner.request(BUDDY, delta(2));
    read(buddy, 1);
    buddy.send(new Envelope(2, true, new Message.AckRange(2)));
    assertThat(next.get(5, TimeUnit.SECONDS)).as("a late ack completes nothing more; the connection goes on").isEqualTo(new Message.Ack(1, 2));
  }

  private static List<CompletableFuture<Message>> requestAll(GrizzlyTransport owner, int count) {
    List<CompletableFuture<Message>> replies = new ArrayList<>();
    for (int version = 1; version <= count; version++) {
      replies.add(owner.request(BUDDY, delta(version))); // each as a request thread about to wait for its reply
    }
    return replies;
  }

  @Test
  void withAWriteLinger_requestsWhileARepliesAwaited_areHeld_andTheReadThatBringsItWritesThemInOneWrite() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime, GrizzlyTransportConfig.MAX_WRITE_LINGER);
    RawPeer buddy = buddyOf(owner);
    long framesBefore = owner.stats().framesWritten();
    long writesBefore = owner.stats().writes();
    long callerWritesBefore = owner.stats().callerWrites();

    List<CompletableFuture<Message>> replies = requestAll(owner, 5);
    Envelope first = buddy.read();

    assertThat(first.correlationId()).isEqualTo(1);
    assertThat(owner.stats().writes() - writesBefore).as("only the first, which awaited nothing").isEqualTo(1);
    buddy.send(new Envelope(1, true, new Message.AckRange(1)));
    List<Envelope> held = read(buddy, 4);

    assertThat(held).extracting(Envelope::correlationId).containsExactly(2L, 3L, 4L, 5L);
    assertThat(owner.stats().framesWritten() - framesBefore).isEqualTo(5);
    assertThat(owner.stats().writes() - writesBefore).as("the four held went together").isEqualTo(2);
    assertThat(owner.stats().callerWrites() - callerWritesBefore).as("the four on the I/O thread that read the ack")
        .isEqualTo(1);
    buddy.send(new Envelope(5, true, new Message.AckRange(4)));
    for (int i = 0; i < 5; i++) {
      assertThat(replies.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, i + 1));
    }
  }

  @Test
  void withAWriteLinger_requestsHeldForAReplyThatNeverComes_areWrittenByTheSweep() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(30), System::nanoTime, GrizzlyTransportConfig.MAX_WRITE_LINGER);
    RawPeer buddy = buddyOf(owner);
    List<CompletableFuture<Message>> replies = requestAll(owner, 2);
    assertThat(buddy.read().correlationId()).isEqualTo(1);

    owner.sweepNow(); // the buddy never answers request 1

    assertThat(buddy.read().correlationId()).isEqualTo(2);
    buddy.send(new Envelope(2, true, new Message.AckRange(2)));
    assertThat(replies.get(1).get(5, TimeUnit.SECONDS)).isEqualTo(new Message.Ack(1, 2));
  }

  @Test
  void withAWriteLinger_aConnectionLostWhileRequestsAreHeld_failsEveryOneOfThemAtOnce() throws Exception {
    GrizzlyTransport owner = owner(Duration.ofSeconds(60), System::nanoTime, GrizzlyTransportConfig.MAX_WRITE_LINGER);
    RawPeer buddy = buddyOf(owner);
    List<CompletableFuture<Message>> replies = requestAll(owner, 5);
    buddy.read();

    buddy.close();

    for (CompletableFuture<Message> reply : replies) {
      // Well inside the 60 s request timeout: none waits it out, whether its frame was written or still held.
      assertThat(reply).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(PeerUnreachableException.class);
    }
  }
}
