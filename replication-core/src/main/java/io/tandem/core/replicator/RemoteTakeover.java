package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.ring.BuddyRing;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Transport;
import io.tandem.core.spi.Waiter;
import io.tandem.core.wire.Message;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Takes over a session that this node holds in no form, from the member that holds it.
 *
 * <p>One hop first: the session id's route (the jvmRoute of the node that last served it) names its likely owner,
 * and the ring names that node's buddy, which holds its backup, or owns it once that node is gone. Each is asked in
 * turn with a single {@link Message.Migrate} at epoch 0, meaning "the epoch after yours": the holder hands the
 * session over in its answer, so a session found where its route says takes one round trip. Every member is asked
 * ({@link Locator}, then a migrate from the best holder) only when one of them answered that the session exists but
 * is not theirs to give, when both said they do not hold it while the view changed a moment ago (sessions may
 * still be on their way) or this node let go of the session a moment ago (fenced, or handed away: it may have gone
 * anywhere), or when the route names this node itself and this node cannot tell, having started less than a
 * tombstone lifetime ago (restarted in place, it remembers nothing of its former run). A session this node let go
 * of whose route names this node skips the hop: its successor, this node's former buddy, may hold a stale copy of
 * this node's own ownership, and hands a backup to its owner (11.3.47); and a backup older than the epoch it was let
 * go at is never migrated in. When both said no in a settled view, the id is remembered as
 * unknown ({@link UnknownSessions}), so that the same cookie costs no message again for a while. A session one of
 * them said exists, that no member then reports a copy of, is unavailable (it is on its way between nodes, or its
 * holder has not confirmed it since a pause), never absent: a new, empty session in its place would lose it.
 *
 * <p>Implementation notes: no state of its own; runs on the request thread that takes the session over (at most
 * one per session on a node, the container sees to that) and never holds a lock while waiting for a reply. A
 * member that stays silent makes the session unavailable (the request is retried), never absent.
 */
final class RemoteTakeover {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  private final ReplicationConfig config;
  private final Transport transport;
  private final Waiter waiter;
  /** Whether this node handed the session to a member a moment ago, and it may still be on its way (Migrations). */
  private final Predicate<String> onItsWay;
  private final NodeId local;
  private final OwnedSessions owned;
  private final BackupStore backups;
  private final Quarantine quarantine;
  private final Locator locator;
  private final StateTransfer stateTransfer;
  private final FlushRules rules;
  private final ReplicationCounters counters;
  private final RateLimitedLog log;
  private final UnknownSessions unknown;
  private final Supplier<MembershipView> view;
  /** Promotes a session another request of this node brought in meanwhile (see {@link Migrations#promote}). */
  private final Function<String, Optional<SessionSnapshot>> promote;
  /**
   * The epoch at which this node let go of a session a moment ago (handed it away, or handed out its backup, at that
   * epoch; fenced: above any), if it did.
   */
  private final Function<String, OptionalLong> letGoAt;
  /**
   * Whether {@link #letGoAt} reaches back a whole tombstone lifetime: false for the first one after this node
   * started, when what it let go of in a former run (restarted in place, under the same node id) is not in it.
   */
  private final java.util.function.BooleanSupplier letGoRememberedInFull;
  /**
   * What to make of a backup held here of a session no other member knows, asked in quarantine (when the local
   * backup is not promoted without asking): taken over when its owner was seen dying, else unavailable.
   */
  private final Function<String, Acquisition> onlyCopyHere;
  /**
   * Releases the holder's copy of a session migrated in, once this node's buddy holds it: that release is what tells
   * the holder its handover is done (see {@link Handovers}).
   */
  private final java.util.function.BiConsumer<OwnedSession, NodeId> releaseHolder;
  /** Lets go of a session installed here that another member turned out to own. */
  private final java.util.function.BiConsumer<OwnedSession, String> fence;
  /** The releases of the holder's buddy's copy, sent as a session is installed here. */
  private final HoldersBuddyReleases releases;
  /** Times a migration's answer against the holder's wait before it decides its handover ({@link Handovers}). */
  private final Ticker ticker;
  /** The time of day, which session times are on: an installed copy's last access is set by it. */
  private final java.time.InstantSource clock;

  RemoteTakeover(ReplicationConfig config, Transport transport, OwnedSessions owned, BackupStore backups,
      Quarantine quarantine, Locator locator, StateTransfer stateTransfer, FlushRules rules, ReplicationCounters counters,
      RateLimitedLog log, UnknownSessions unknown, Supplier<MembershipView> view,
      Function<String, Optional<SessionSnapshot>> promote, Function<String, OptionalLong> letGoAt,
      java.util.function.BooleanSupplier letGoRememberedInFull, Predicate<String> onItsWay,
      Function<String, Acquisition> onlyCopyHere, java.util.function.BiConsumer<OwnedSession, NodeId> releaseHolder,
      java.util.function.BiConsumer<OwnedSession, String> fence, HoldersBuddyReleases releases, Waiter waiter,
      Ticker ticker, java.time.InstantSource clock) {
    this.fence = fence;
    this.releases = releases;
    this.ticker = ticker;
    this.clock = clock;
    this.letGoRememberedInFull = letGoRememberedInFull;
    this.releaseHolder = releaseHolder;
    this.onItsWay = onItsWay;
    this.waiter = waiter;
    this.config = config;
    this.transport = transport;
    this.local = transport.localNode();
    this.owned = owned;
    this.backups = backups;
    this.quarantine = quarantine;
    this.locator = locator;
    this.stateTransfer = stateTransfer;
    this.rules = rules;
    this.counters = counters;
    this.log = log;
    this.unknown = unknown;
    this.view = view;
    this.promote = promote;
    this.letGoAt = letGoAt;
    this.onlyCopyHere = onlyCopyHere;
  }

  /**
   * What asking every member came to; {@code untraced} when the result is {@link Acquisition#NOWHERE} because every
   * member answered and none knows the session at all (no copy, no end, nothing unconfirmed).
   */
  private record Search(Acquisition result, boolean untraced) {
    static Search of(Acquisition result) {
      return new Search(result, false);
    }
  }

  /** What one hop found. */
  private enum HopResult {
    /** The session was taken over, or cannot be now (see the acquisition). */
    DECIDED,
    /** Neither member asked holds it. */
    ABSENT,
    /** A member said it exists but is not its to give: every member must be asked. */
    ELSEWHERE
  }

  /**
   * The session from whichever member holds it; this node owns it afterwards at a higher epoch.
   *
   * @param route the node the session id's route names, when routes are node ids; empty when the id carries none
   */
  Acquisition acquire(String id, Optional<NodeId> route) {
    return acquire(id, route, view.get());
  }

  /**
   * {@link #acquire(String, Optional)}, the one hop's targets taken from {@code current}: the view in which the caller
   * found {@code route} to be the live owner of a backup held here ({@link Migrations#acquire}). Taken from a later
   * view, one that no longer lists that owner (its redial was refused meanwhile), the hop would ask nobody and answer
   * "nowhere" although the only copy is this node's own backup; asked, the dead owner fails at once, and the caller
   * promotes that backup.
   */
  Acquisition acquire(String id, Optional<NodeId> route, MembershipView current) {
    // After a pause or a cut-off this node's idea of the cluster may be stale: it asks everyone, remembers nothing.
    boolean trusted = !quarantine.active();
    if (trusted && unknown.isRemembered(id)) {
      return Acquisition.NOWHERE;
    }
    long token = unknown.beforeAsking();
    boolean elsewhere = false;
    // A session handed away from here a moment ago is looked for among every member's answers, where an owner can be
    // told from a backup (see everyMember): the one hop cannot tell them apart. So is one this node let go of (handed
    // away, or fenced) whose route names this node: the hop would ask this node's successor, its former buddy, which
    // may still hold a backup of this node's own ownership from before the let-go (paused or cut off while this node
    // moved the copy on), and hands a backup to its owner: back at the epoch after it, that stale copy tied the owner
    // this node had let go to and lost the writes it had acknowledged (the simulation, seed 649056, 11.3.47).
    boolean letGoOfItsOwn = route.isPresent() && route.get().equals(local) && letGoHere(id);
    if (trusted && route.isPresent() && current != null && !onItsWay.test(id) && !letGoOfItsOwn) {
      Acquisition[] decided = new Acquisition[1];
      HopResult hop = oneHop(id, targets(current, route.get()), decided);
      elsewhere = hop == HopResult.ELSEWHERE;
      if (hop == HopResult.DECIDED) {
        return decided[0];
      }
      // A route naming a node that left the view: its buddy alone says nothing conclusive, since the session may have
      // been installed there a moment before it died, with only the holder of the handover keeping a copy (the
      // simulation, seed 21051).
      boolean routeGone = !current.contains(route.get());
      // A route naming this node: the hop asked its successor only, and this node's own "not here" rests on what it
      // remembers letting go of, which holds nothing from before it started. Restarted in place, it may have handed
      // the session away in its former run, to a node the successor does not know of (the simulation, seed 37264).
      boolean routeHereForgotten = route.get().equals(local) && !letGoRememberedInFull.getAsBoolean();
      // A session this node let go of a moment ago (fenced, or handed away): it may have gone to a node whose buddy
      // is not the route's successor, or to one this node's view does not list yet. Only every member can say where.
      // (A forged id costs the one hop only, as any other: it was never let go of here.)
      boolean letGo = letGoHere(id);
      if (hop == HopResult.ABSENT && !unknown.viewRecentlyChanged() && !letGo && !routeGone && !routeHereForgotten) {
        unknown.remember(id, token);
        return Acquisition.NOWHERE;
      }
    }
    Search search = everyMember(id);
    if (search.untraced() && !trusted && backups.entry(id).isPresent()) {
      // In quarantine this node's own backup was left aside until every member was asked; none knows the session,
      // so this copy is the only one. A new, empty session in its place would lose it.
      return onlyCopyHere.apply(id);
    }
    if (search.untraced() && elsewhere) {
      // One of the route's nodes said the session exists but is not its to give (handed away a moment ago, owned by
      // a live member, unconfirmed after a pause), yet no member reports a copy: it is on its way, or its holder has
      // not confirmed it yet. A new, empty session in its place would lose it; the request is retried instead.
      return Acquisition.unavailable("session " + id + " exists by what a member said, but no member reports a copy of it now");
    }
    Acquisition found = search.result();
    if (trusted && found.equals(Acquisition.NOWHERE)) {
      unknown.remember(id, token);
    }
    return found;
  }

  /** The route's node when it is a member, then the member holding its backups; never this node. */
  private List<NodeId> targets(MembershipView current, NodeId route) {
    List<NodeId> targets = new ArrayList<>(2);
    if (current.contains(route)) {
      targets.add(route);
    }
    BuddyRing.successorOf(current, route).ifPresent(targets::add);
    targets.removeIf(t -> t.equals(local));
    return targets.stream().distinct().toList();
  }

  private HopResult oneHop(String id, List<NodeId> targets, Acquisition[] decided) {
    boolean elsewhere = false;
    List<NodeId> silent = new ArrayList<>();
    for (NodeId target : targets) {
      Message answer;
      MembershipView askedIn = view.get();
      try {
        answer = migrate(target, id, 0);
        if (answer instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.STALE_EPOCH) {
          // A node that predates "0 means the epoch after yours" names its epoch instead: once more, above it.
          answer = migrate(target, id, Claims.from(nack.epoch()));
        }
      } catch (ExecutionException | TimeoutException e) {
        silent.add(target);
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        decided[0] = migrationFailed(id, target, "interrupted");
        return HopResult.DECIDED;
      }
      if (answer instanceof Message.FullSession full) {
        decided[0] = install(id, target, full.snapshot(), askedIn, true);
        return HopResult.DECIDED;
      }
      if (answer instanceof Message.Nack ended && ended.reason() == Message.Nack.Reason.INVALIDATED) {
        backups.endedElsewhere(id, ended.epoch()); // a copy here from before that end is stale
        continue;
      }
      if (!(answer instanceof Message.Nack nack) || nack.reason() != Message.Nack.Reason.UNKNOWN_SESSION) {
        elsewhere = true; // refused: owned by a live member, just handed away, or not confirmed after a pause
      }
    }
    if (!silent.isEmpty()) {
      decided[0] = Acquisition.unavailable("session " + id + " may be held by " + silent + ", which did not answer within "
          + config.ackTimeout());
      return HopResult.DECIDED;
    }
    return elsewhere ? HopResult.ELSEWHERE : HopResult.ABSENT;
  }

  /** Asks every member who holds the session, then migrates it from the best holder: two round trips. */
  private Search everyMember(String id) {
    Locator.Answers answers = locator.ask(id);
    NodeId holder = null;
    Message.LocateReply best = null;
    boolean unconfirmed = false;
    boolean ended = false;
    for (Map.Entry<NodeId, Message.LocateReply> reply : answers.replies().entrySet()) {
      Message.LocateReply found = reply.getValue();
      unconfirmed |= found.holding() == Message.LocateReply.Holding.UNCONFIRMED;
      if (found.holding() == Message.LocateReply.Holding.ENDED) {
        ended = true;
        backups.endedElsewhere(id, found.epoch()); // a copy here from before that end is stale, as in the one hop
      }
      if (found.holding().hasCopy() && (best == null || better(found, best))) {
        best = found;
        holder = reply.getKey();
      }
    }
    if (onItsWay.test(id) && !ended && (holder == null || best.holding() != Message.LocateReply.Holding.PRIMARY)) {
      return Search.of(Acquisition.unavailable("session " + id + " was handed to another member by " + local.value()
          + " a moment ago, and no member reports owning it yet; retry"));
    }
    if (holder == null) {
      MembershipView current = view.get();
      if (!ended && letGoHere(id) && current != null && current.memberIds().size() == 1) {
        // Let go of here a moment ago for another owner (fenced by its copy at a later epoch, or handed away), and
        // this node's view lists nobody else yet (the views of a healed partition merge one at a time): that owner is
        // not asked, and "nowhere" would give the user an empty session in its place (the simulation, seed 1067).
        return Search.of(Acquisition.unavailable("session " + id + " was let go of here a moment ago for another owner,"
            + " which " + local.value() + "'s view does not list yet; retry"));
      }
      if (unconfirmed && !ended) {
        return Search.of(Acquisition.unavailable("session " + id + " is held by a member that has not confirmed it since a pause"));
      }
      if (!answers.silent().isEmpty()) {
        return Search.of(Acquisition.unavailable("session " + id + " is held by no member that answered, and "
            + answers.silent() + " did not answer within " + config.ackTimeout()));
      }
      return new Search(Acquisition.NOWHERE, !ended);
    }
    OptionalLong letGo = letGoAt.apply(id);
    if (letGo.isPresent() && best.holding() == Message.LocateReply.Holding.BACKUP && best.epoch() < letGo.getAsLong()
        && (letGo.getAsLong() != Migrations.FENCED_AT_AN_UNKNOWN_EPOCH || !answers.silent().isEmpty() || unconfirmed)) {
      // Let go of here for an owner at a later epoch than this backup's: the backup is older than the copy that owner
      // took (maybe one of this node's own former ownership, which its holder hands back to this node, its owner, at the
      // epoch after it, beside the live one: 11.3.47), whether the newer copy's holders are silent, unconfirmed, or not
      // in this node's view yet (a heal merges views one at a time). Fenced at an epoch this node does not know, only a
      // silent or unconfirmed member makes it so.
      return Search.of(Acquisition.unavailable("session " + id + " was let go of here, and the copy found is a backup at"
          + " epoch " + best.epoch() + ", older than the one it was let go to; retry"));
    }
    MembershipView askedIn = view.get();
    try {
      Message answer = migrate(holder, id, Claims.from(best.epoch()));
      return Search.of(answer instanceof Message.FullSession full ? install(id, holder, full.snapshot(), askedIn, true)
          : migrationFailed(id, holder, answer.toString()));
    } catch (ExecutionException | TimeoutException e) {
      return Search.of(migrationFailed(id, holder, e.toString()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Search.of(migrationFailed(id, holder, "interrupted"));
    }
  }

  /**
   * Asks {@code holder} to hand the session over; the request thread waits one ack timeout. The holder lets go of the
   * session as it answers (and its buddy drops its copy), so an answer that comes after this thread gave up is the
   * only copy left: the transport keeps waiting for it a settle timeout longer, and it is installed here when it
   * comes (the next request for the session finds it adopted). Dropped, it lost the session: a node busy for half a
   * second lost a whole session so in a test.
   */
  private Message migrate(NodeId holder, String id, long newEpoch)
      throws ExecutionException, TimeoutException, InterruptedException {
    long askedAt = ticker.read();
    MembershipView askedIn = view.get();
    CompletableFuture<Message> reply =
        transport.request(holder, new Message.Migrate(id, local, newEpoch), config.ackTimeout().plus(config.settleTimeout()));
    Message answer;
    try {
      answer = waiter.await(reply, config.ackTimeout().toNanos());
    } catch (TimeoutException e) {
      reply.thenAccept(late -> {
        if (!(late instanceof Message.FullSession full) || !installableAnswer(id, holder, askedAt)) {
          return;
        }
        // Not when this node has the session already, or took it and let go of it since at that epoch or above: the
        // late copy is older; unless it supersedes one installed here and never served (see supersedes). A copy
        // handed out from here at a lower epoch (a backup, after its owner died) says nothing of this later one.
        OptionalLong letGo = letGoAt.apply(id);
        if (owned.get(id).isEmpty() && (letGo.isEmpty() || letGo.getAsLong() < full.snapshot().epoch())) {
          LOG.log(Level.WARNING, "Session [{0}]: {1} handed it over after the request that asked had given up; it is"
              + " owned here from now on", id, holder.value());
          install(id, holder, full.snapshot(), askedIn, false);
        } else if (releases.supersedes(id, full.snapshot())) {
          owned.get(id).ifPresent(older -> fence.accept(older, holder.value() + " handed it over at epoch "
              + full.snapshot().epoch() + ", above the copy installed here, which was never served"));
          LOG.log(Level.WARNING, "Session [{0}]: {1} handed it over at epoch {2} after another member had; the later"
              + " copy is owned here from now on", id, holder.value(), full.snapshot().epoch());
          install(id, holder, full.snapshot(), askedIn, false);
        }
      });
      throw e;
    }
    if (answer instanceof Message.FullSession && !installableAnswer(id, holder, askedAt)) {
      throw new TimeoutException("the answer came after " + holder.value() + " may have decided its handover");
    }
    return answer;
  }

  /**
   * Whether an answer to a {@code Migrate} asked at {@code askedAt} may still be installed: only within the
   * {@code ackTimeout + settleTimeout} the holder waits, from its answer, before it decides the handover and maybe
   * takes the session back ({@link Handovers}). The transport's deadline says the same, unless this node was paused
   * meanwhile: the reply and the deadline then come together on resuming, and the reply went first. Installed then,
   * the copy made a second owner beside the holder, which had taken the session back at the next epoch, and served
   * reads of older values until its release was refused (the simulation, seed 48385).
   */
  private boolean installableAnswer(String id, NodeId holder, long askedAt) {
    long waited = ticker.read() - askedAt;
    if (waited < config.ackTimeout().plus(config.settleTimeout()).toNanos()) {
      return true;
    }
    LOG.log(Level.WARNING, "Session [{0}]: {1} answered {2} ms after it was asked, past the time it waits before deciding"
        + " its handover; not installed here", id, holder.value(), waited / 1_000_000);
    return false;
  }

  /**
   * Owns the session handed over by {@code holder} from now on, and queues it for this node's buddy; unless it is a
   * copy from before the session ended here (a buddy frozen while the user logged out kept one): the holder has let
   * go of it, and it is not taken back in.
   *
   * @param askedIn the view the holder was asked in, where its buddy is looked up if the view dropped it since
   * @param onRequestThread whether the request that asked waits for this (it may wait for the holder's buddy); false
   *     for an answer that came after it gave up, installed on the transport thread that read it, which must not wait
   */
  private Acquisition install(String id, NodeId holder, SessionSnapshot moved, MembershipView askedIn,
      boolean onRequestThread) {
    long heldAt = Claims.source(moved.epoch()); // the holder's epoch: it hands a session over at the epoch after its own
    OptionalLong ended = backups.endedAt(id);
    if (ended.isPresent() && heldAt <= ended.getAsLong()) {
      LOG.log(Level.INFO, "Session [{0}] ended here at epoch {1}; the copy {2} still held at epoch {3} was dropped, not"
          + " taken back in", id, ended.getAsLong(), holder.value(), heldAt);
      tellEnded(holder, moved, ended.getAsLong(), onRequestThread);
      return Acquisition.NOWHERE;
    }
    backups.claimedHere(id, heldAt); // the former holder's epoch: its late updates are refused here too
    // A request here asked for the session a moment ago: that is an access, on this node's clock. The copy's own
    // last-access time was stamped on the holder's clock, which may be minutes behind this one's: judged by it, the
    // session installed here expired at the next tick (soak seed 89654, docs/protocol.md 11.3.25).
    SessionSnapshot accessed = moved.withLastAccessedTime(clock.millis());
    OwnedSession session = new OwnedSession(id, moved.epoch(), moved.version(), new SessionContent.Stored(accessed));
    if (!owned.add(session)) {
      return promote.apply(id).map(Acquisition::found).orElseGet(() -> takenOverMeanwhile(id));
    }
    unknown.appeared(id);
    // Owned here before the release goes out: a holder's buddy that dropped its copy on it and a holder that then
    // died leave this node's copy as the only one. Until the answer came, the session is served nowhere here.
    Optional<NodeId> holdersBuddy = releases.holdersBuddy(holder, askedIn);
    if (holdersBuddy.isPresent()) {
      Optional<String> claimedThere = releases.release(holdersBuddy.get(), session, moved, heldAt, onRequestThread);
      if (claimedThere.isPresent()) {
        fence.accept(session, claimedThere.get());
        return Acquisition.unavailable("session " + id + " was taken over by another member while " + holder.value()
            + " handed it here: " + claimedThere.get());
      }
    }
    counters.sessionsMigratedIn.increment();
    releaseHolder.accept(session, holder);
    stateTransfer.enqueue(session);
    LOG.log(Level.INFO, "Session [{0}] migrated in from {1} at epoch {2}", id, holder.value(), moved.epoch());
    if (onRequestThread && releases.pending(id)) {
      // Not answered within the wait: served, the copy over there could be adopted at this epoch beside this node's
      // (soak seed 171195, docs/protocol.md 11.3.34). The session stays here, protected, unserved until it answers.
      return Acquisition.unavailable("session " + id + " was handed here by " + holder.value() + ", whose buddy has"
          + " not yet answered the release of its copy; retry in a moment");
    }
    return Acquisition.found(session.snapshot(rules));
  }

  /** Whether this node let go of {@code id} a moment ago. */
  private boolean letGoHere(String id) {
    return letGoAt.apply(id).isPresent();
  }

  /**
   * The holder keeps the copy it handed over until this node shows it holds it ({@link Handovers}): told the session
   * ended, it ends its copy too instead of taking it back. Waits at most one ack timeout for the answer, so that the
   * holder knows before this request is answered.
   */
  private void tellEnded(NodeId holder, SessionSnapshot moved, long endedAt, boolean await) {
    CompletableFuture<Message> told = transport.request(holder,
        new Message.Invalidate(moved.id(), Math.max(endedAt, moved.epoch()), moved.version(), Message.InvalidateReason.INVALIDATED));
    if (!await) {
      return; // on a transport thread, which must not wait
    }
    try {
      waiter.await(told, config.ackTimeout().toNanos());
    } catch (ExecutionException | TimeoutException e) {
      // It decides by asking every member once the answer is overdue, and this node answers that the session ended.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Acquisition migrationFailed(String id, NodeId holder, String why) {
    log.warn("migrate:" + holder, "Session [" + id + "] could not be migrated from " + holder.value() + ": " + why);
    return Acquisition.unavailable("session " + id + " could not be migrated from " + holder.value() + ": " + why);
  }

  Acquisition takenOverMeanwhile(String id) {
    return Acquisition.unavailable("session " + id + " was just taken over by another request on " + local.value());
  }

  /**
   * Whether copy {@code a} is newer than {@code b}: the newer epoch first (a copy at a newer epoch comes from the owner
   * that took the session over since, and in SYNC mode holds every change acknowledged before; an owner at an older
   * epoch is one that has not been fenced yet), then the owner's own copy, then the later version.
   */
  private static boolean better(Message.LocateReply a, Message.LocateReply b) {
    if (a.epoch() != b.epoch()) {
      return a.epoch() > b.epoch();
    }
    if (a.holding() != b.holding()) {
      return a.holding() == Message.LocateReply.Holding.PRIMARY;
    }
    return a.version() > b.version();
  }
}
