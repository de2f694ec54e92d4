package io.tandem.core.replicator;

import io.tandem.core.backup.BackupStore;
import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.logging.RateLimitedLog;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Ticker;
import io.tandem.core.spi.Waiter;
import io.tandem.core.spi.Transport;
import io.tandem.core.wire.Message;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Sessions moving between owners on request: this node taking over a session it does not hold live (promoting an
 * adopted session or a local backup, or taking it over from the member that holds it, see {@link RemoteTakeover}), and
 * handing one of its own over when another member asks ({@link MigrateAnswers}). Every move raises the session's
 * epoch, which fences the former holder.
 *
 * <p>Implementation notes: no state of its own. Request threads call {@link #promote} and {@link #acquire}; transport
 * threads call {@link #migrateOut}. A session is fenced and captured under its own lock ({@link
 * OwnedSession#handOver}); nothing waits for a reply under a lock.
 */
final class Migrations implements IncomingRequests.HandingOut {
  /** The epoch a session fenced here is remembered as let go at: a claim at an epoch this node does not know, above any. */
  static final long FENCED_AT_AN_UNKNOWN_EPOCH = Long.MAX_VALUE;

  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  /** What moving sessions needs from the rest of the engine. */
  interface Engine {
    /** The current buddy, or null when this node is alone in its view. */
    NodeId buddy();

    /** The view this node acts on, or null before the first. */
    MembershipView view();

    /** Takes ownership of a session from its bytes at the next epoch, and queues it for the buddy. */
    OwnedSession adopt(SessionSnapshot snapshot);

    /**
     * Takes ownership of the session from the backup held here, at the next epoch, owned before the copy leaves the
     * store (see {@link Adoption#adoptBackup}); empty when no backup of it is held.
     */
    Optional<OwnedSession> adoptBackup(String id, Predicate<BackupStore.BackupEntry> eligible);

    /** Forgets a session that was just fenced here, and tells the container to drop its copy. */
    void retireFenced(OwnedSession session, String reason);

    /** Fences a session owned here that another node owns now, and forgets it (see {@link Fencing#fence}). */
    void fence(OwnedSession session, String reason);

    /**
     * Waits at most {@code nanos} until {@code peer} is out of {@link #view()} (the view dropped it, or its host
     * refused a redial); true if it is.
     */
    boolean awaitGone(NodeId peer, long nanos) throws InterruptedException;

    /** Whether {@code peer} was seen dying, not merely missing from the view (see {@link SuspectedPeers#seenDying}). */
    boolean seenDying(NodeId peer);

    /** Releases {@code former}'s copy of a session that moved on, at the next maintenance tick and until it answers. */
    void releaseLater(OwnedSession session, NodeId former);
  }


  private final Transport transport;
  private final NodeId local;
  private final OwnedSessions owned;
  private final BackupStore backups;
  private final PendingInvalidations invalidations;
  private final Quarantine quarantine;
  private final LeftoverCopies leftovers;
  private final RemoteTakeover remote;
  /** The releases of a holder's buddy's copy this node sent for sessions migrated in (see {@link RemoteTakeover}). */
  private final HoldersBuddyReleases releases;
  /** Answers the {@code Migrate}s other members send: hands a session over, or says why not. */
  private final MigrateAnswers answers;
  private final FlushRules rules;
  private final ReplicationCounters counters;
  private final Engine engine;
  /**
   * Sessions this node handed to another member a moment ago: a request still carrying this node's route (a tab
   * that left before the cookie was re-issued) is told the session exists elsewhere, so the asker looks for it
   * everywhere rather than concluding that it exists nowhere.
   */
  private final RecentIds handedAway;
  /**
   * Ids this node handed to a member that asked, within the longest a reply can take ({@code ackTimeout} +
   * {@code settleTimeout}): the session may still be on its way. A request here for one of them takes it only from a
   * member that owns it ({@link RemoteTakeover}), never from a backup: that is this node's own old copy, at its
   * former buddy, and claiming it made a second owner at the same epoch, whose acknowledged writes the first one's
   * copy then lacked (docs/protocol.md 11.2, found by the simulation).
   */
  private final RecentIds justHanded;
  private final long ackTimeoutNanos;
  /** How often a graceful leave sends again the releases refused for now, as the maintenance tick would. */
  private final long resendEveryNanos;
  private final Ticker ticker;
  private final Waiter waiter;
  /** Sessions handed out whose requester has not yet shown it holds them: the migration's second step. */
  private final Handovers handovers;

  static final int HANDED_AWAY_CAPACITY = 100_000;

  /** How long an owner back from a pause serves a session on a confirmation from here (11.3.13). */
  private final java.time.Duration ownerLease;

  Migrations(ReplicationConfig config, Transport transport, OwnedSessions owned, BackupStore backups,
      PendingInvalidations invalidations, Quarantine quarantine, Locator locator, StateTransfer stateTransfer,
      LeftoverCopies leftovers, FlushRules rules, ReplicationCounters counters, RateLimitedLog log,
      UnknownSessions unknown, InstantSource clock, Ticker ticker, Waiter waiter, Engine engine) {
    this.transport = transport;
    this.local = transport.localNode();
    this.owned = owned;
    this.backups = backups;
    this.invalidations = invalidations;
    this.quarantine = quarantine;
    this.leftovers = leftovers;
    this.rules = rules;
    this.counters = counters;
    this.engine = engine;
    // As long as a buddy keeps a tombstone (a cookie naming this node can outlive 30 s by far), and room for a
    // whole node's sessions handed away at once in a rolling restart.
    // Both on the ticker, not the wall clock: a step of it forgot ids at once, or kept them for as long as the step.
    this.handedAway = new RecentIds(ticker.asLocalClock(), config.tombstoneTtl(), HANDED_AWAY_CAPACITY);
    this.justHanded = new RecentIds(ticker.asLocalClock(), config.ackTimeout().plus(config.settleTimeout()),
        HANDED_AWAY_CAPACITY);
    this.ackTimeoutNanos = config.ackTimeout().toNanos();
    this.resendEveryNanos = config.maintenanceInterval().toNanos();
    this.ownerLease = config.pauseThreshold();
    this.ticker = ticker;
    this.waiter = waiter;
    this.handovers = new Handovers(local, transport, backups, ticker, config.ackTimeout(), config.settleTimeout(),
        new Handovers.Engine() {
          @Override
          public MembershipView view() {
            return engine.view();
          }

          @Override
          public OwnedSession takeBack(SessionSnapshot handed) {
            counters.sessionsTakenBack.increment();
            return engine.adopt(handed);
          }

          @Override
          public boolean ownsNow(String id) {
            return owned.get(id).isPresent();
          }

          @Override
          public void releaseLater(OwnedSession session, NodeId former) {
            engine.releaseLater(session, former);
          }
        });
    this.releases = new HoldersBuddyReleases(config, transport, owned, engine::view, engine::fence, waiter);
    this.remote = new RemoteTakeover(config, transport, owned, backups, quarantine, locator, stateTransfer, rules,
        counters, log, unknown, engine::view, this::promote, handedAway::valueOf,
        handedAway::spansItsLifetime, justHanded::contains, this::onlyCopyHere,
        engine::releaseLater, engine::fence, releases, waiter, ticker, clock);
    this.answers = new MigrateAnswers(local, engine, owned, backups, handovers, releases, quarantine, leftovers, rules,
        counters, handedAway, justHanded, ownerLease, this::confirmedToItsOwnerAMomentAgo);
  }

  /**
   * Another member asked for a session: hand it over at the new epoch and let go of it here (see {@link
   * MigrateAnswers#answer}).
   */
  Message migrateOut(NodeId requester, Message.Migrate move) {
    return answers.answer(requester, move);
  }

  /**
   * A session owned here was fenced: another node took it over. Remembered as let go of, as a session handed away
   * is, so that this node asks every member for it rather than conclude from one hop that it exists nowhere, and
   * tells a member that asks to do the same.
   */
  void fencedHere(String id) {
    handedAway.add(id, FENCED_AT_AN_UNKNOWN_EPOCH); // every late copy is older
  }

  /**
   * {@link #fencedHere}, by an owner's claim at {@code epoch}: a copy at a later epoch is newer than that claim (a late
   * answer of a {@code Migrate} this node sent before it was fenced, say), and is not dropped as older. The memory of
   * a later hand-out (a higher epoch) is kept.
   */
  @Override
  public void fencedByAClaimAt(String id, long epoch) {
    OptionalLong known = handedAway.valueOf(id);
    if (known.isEmpty() || known.getAsLong() == FENCED_AT_AN_UNKNOWN_EPOCH || known.getAsLong() < epoch) {
      handedAway.add(id, epoch);
    }
  }

  /**
   * The bytes of a session this node can take over without asking anyone: one it adopted from a dead owner, or
   * one it holds as a backup (then it becomes the owner at a higher epoch, fencing the old owner). The container
   * deserializes it, then calls {@link ReplicationEngine#attach}.
   */
  Optional<SessionSnapshot> promote(String id) {
    return promote(id, copy -> true);
  }

  /** {@link #promote}, taking over only a backup {@code claimable} says may be claimed when it is read. */
  private Optional<SessionSnapshot> promote(String id, Predicate<BackupStore.BackupEntry> claimable) {
    Optional<SessionSnapshot> adopted = promoteAdopted(id);
    return adopted.isPresent() ? adopted : promoteBackup(id, claimable);
  }

  private Optional<SessionSnapshot> promoteAdopted(String id) {
    Optional<OwnedSession> adopted = owned.get(id).filter(OwnedSession::isStored);
    if (adopted.isPresent()) {
      counters.sessionsPromoted.increment();
      return Optional.of(adopted.get().snapshot(rules));
    }
    return Optional.empty();
  }

  private boolean awaitGone(NodeId owner) {
    try {
      // The redial check's refusal comes within milliseconds of the close on a quiet machine; a loaded one gets as
      // long as a reply would.
      return engine.awaitGone(owner, ackTimeoutNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Whether this node's backup of {@code id} was confirmed to its owner within the lease an owner back from a pause
   * serves on (docs/protocol.md 11.3.13): it is neither taken over nor handed out until then, as {@link Adoption}
   * defers adopting it. Not to the owner itself ({@code claimant}), asking for its own copy (restarted in place).
   */
  private boolean confirmedToItsOwnerAMomentAgo(String id, NodeId claimant) {
    return backups.entry(id).filter(held -> !held.owner().equals(claimant))
        .map(held -> held.confirmedToOwnerWithin(ownerLease)).orElse(false);
  }

  /** The owner of this node's backup of {@code id} when that owner is another live member of {@code current}. */
  private Optional<NodeId> liveOwnerOfBackup(String id, MembershipView current) {
    return backups.entry(id).map(BackupStore.BackupEntry::owner).filter(owner -> liveMember(owner, current));
  }

  private boolean liveMember(NodeId node, MembershipView current) {
    return current != null && current.contains(node) && !node.equals(local);
  }

  /** A copy left from when this node was its owner's buddy is not promoted without asking: see {@link #acquire}. */
  private Optional<SessionSnapshot> promoteBackup(String id, Predicate<BackupStore.BackupEntry> claimable) {
    return leftovers.holdsLeftover(id) ? Optional.empty() : takeOverBackup(id, claimable);
  }

  private Optional<SessionSnapshot> takeOverBackup(String id, Predicate<BackupStore.BackupEntry> claimable) {
    Optional<NodeId> owner = backups.entry(id).map(BackupStore.BackupEntry::owner);
    Optional<OwnedSession> adopted = engine.adoptBackup(id, claimable);
    if (adopted.isEmpty()) {
      return Optional.empty();
    }
    OwnedSession session = adopted.get();
    counters.sessionsPromoted.increment();
    LOG.log(Level.INFO, "Session [{0}] promoted from backup (owner {1}) at epoch {2}", id,
        owner.map(NodeId::value).orElse("?"), session.epoch());
    return Optional.of(session.snapshot(rules));
  }

  /**
   * The bytes of a session wherever it is in the cluster: promoted locally when this node holds it, otherwise taken
   * over from its holder ({@link RemoteTakeover}: first from the node {@code route} names and that node's buddy, in
   * one round trip where the holder is one of them). This node owns it afterwards at a higher epoch; the former
   * holder lets go. Blocks the calling request thread for at most two ack timeouts besides prompt answers (four
   * beside nodes of an earlier release, which need the epoch named), and one more while the holder's buddy answers
   * its release (11.3.27). A session some member holds but would not or
   * could not hand over, or that a silent member may hold, is reported unavailable rather than absent, so that no
   * request is handed a new, empty session in its place.
   */
  Acquisition acquire(String id, Optional<NodeId> route) {
    Acquisition acquired = find(id, route);
    if (acquired.snapshot().isPresent() && releases.pending(id)) {
      // Found owned here by any path (promoted, or brought in by a late answer another request's takeover received)
      // while the holder's buddy has not answered the release of its copy: served nowhere yet (11.3.34).
      return Acquisition.unavailable("session " + id + " was just migrated here and the former holder's buddy has not"
          + " yet answered the release of its copy; retry in a moment");
    }
    return acquired;
  }

  /** {@link #acquire}, before the check of a pending release. */
  private Acquisition find(String id, Optional<NodeId> route) {
    if (invalidations.isPending(id)) {
      // Ended here, and the buddy may not know yet: its copy must never be taken back in (a logout sticks).
      return Acquisition.NOWHERE;
    }
    Optional<NodeId> handingTo = handovers.requesterOf(id);
    if (handingTo.isPresent()) {
      // Handed out a moment ago and not yet known to be held there: owned by whichever the handover's end decides.
      return Acquisition.unavailable("session " + id + " is being handed to " + handingTo.get().value() + " by "
          + local.value() + "; retry in a moment");
    }
    Optional<SessionSnapshot> here = promoteAdopted(id);
    if (here.isEmpty() && owned.get(id).isPresent()) {
      // Owned here and attached already (another request of the container brought it in a moment ago): the cluster
      // must not be asked, it would answer with this node's own copy at its buddy, and migrating that in would drop
      // the buddy's copy and refuse this node's next update of it.
      return remote.takenOverMeanwhile(id);
    }
    // Taking over the local backup at a higher epoch is safe even if its owner still runs: in SYNC mode the backup
    // holds every acknowledged change, and the owner's next write is refused (fenced). After a pause or partition,
    // though, a backup held here may be older than the cluster's copy: ask first.
    if (here.isEmpty() && !quarantine.active()) {
      // One view for the decision and the ask: the owner found live here is the one the takeover asks. Read again
      // there, a suspicion of the owner landing in between (its redial refused a moment after the kill) left the one
      // hop nobody to ask, and "nobody answered that they hold it" came back as NOWHERE beside the backup held here.
      MembershipView current = engine.view();
      Optional<NodeId> liveOwner = liveOwnerOfBackup(id, current);
      // The copy this decision is about: one another live member sends here from now on (this node became its buddy
      // while its owner was asked) is that member's session, served there; claimed here, its owner would go on
      // serving reads, a logout here notwithstanding (soak seed 328510, docs/protocol.md 11.3.37). Asked instead.
      Predicate<BackupStore.BackupEntry> claimable = copy -> liveOwner.map(copy.owner()::equals)
          .orElseGet(() -> !liveMember(copy.owner(), current));
      if (liveOwner.isPresent() && !leftovers.isDoubted(id)) {
        // (A copy in doubt is confirmed with every member below, its owner among them: 11.3.43. Its owner restarted
        // and knows nothing of it; asked alone, it made the request conclude "nowhere" beside the copy held here.)
        // The owner may have handed the session to a third node a moment ago (its RELEASED to this node is still on
        // the way): promoting this copy would make a second owner at the same epoch, which nothing fences. The owner
        // hands it over itself, or says where it went.
        Optional<Acquisition> fromOwner =
            unlessTheOwnerJustDied(liveOwner.get(), () -> remote.acquire(id, liveOwner, current));
        if (fromOwner.isPresent()) {
          return fromOwner.get();
        }
        // Its backup is taken over here as it would be once the view drops the owner, instead of answering 503 and
        // making the user come back.
      }
      if (leftovers.holdsLeftover(id)) {
        // Left from when this node was the owner's buddy: it may be older than the owner's last 200 (LeftoverCopies).
        switch (leftovers.confirm(id)) {
          case ADOPTED:
            return promoteAdopted(id).map(Acquisition::found).orElseGet(() -> remote.takenOverMeanwhile(id));
          case UNDECIDED:
            return Acquisition.unavailable("session " + id + " is held on " + local.value() + " as a copy left from when"
                + " it was its owner's buddy, and a member that may hold a newer one did not answer");
          case DROPPED:
            // Maybe taken over by the maintenance thread's confirmation meanwhile: the cluster must not be asked for
            // a session owned here (its adopted copy is on no other member yet: "nowhere").
            Optional<SessionSnapshot> adopted = promoteAdopted(id);
            if (adopted.isPresent()) {
              return Acquisition.found(adopted.get());
            }
            return owned.get(id).isPresent() ? remote.takenOverMeanwhile(id) : remote.acquire(id, route);
          case KEPT:
            // Its owner answered that it serves the session: a request reaching this node came a moment before the
            // owner's answer to this one's own question (it had found nothing there); the next one finds it there.
            return Acquisition.unavailable("session " + id + " is owned by the owner of the copy held on " + local.value()
                + ", which says it serves it; retry in a moment");
        }
      }
      if (confirmedToItsOwnerAMomentAgo(id, local)) {
        return Acquisition.unavailable("session " + id + " was confirmed to its owner by " + local.value() + " a moment"
            + " ago (back from a pause), and the owner may serve it until that runs out; retry in a moment");
      }
      // Adopted or still a backup: once this node suspected the owner it adopts that owner's sessions itself, maybe
      // while this request waited for the verdict.
      here = promote(id, claimable);
      if (here.isEmpty() && confirmedToItsOwnerAMomentAgo(id, local)) {
        // Confirmed to its owner between the check above and the claim: not absent, not claimable yet.
        return Acquisition.unavailable("session " + id + " was confirmed to its owner by " + local.value()
            + " a moment ago; retry in a moment");
      }
    }
    if (here.isPresent()) {
      return Acquisition.found(here.get());
    }
    Optional<NodeId> liveOwner = quarantine.active() ? liveOwnerOfBackup(id, engine.view()) : Optional.empty();
    if (liveOwner.isPresent()) {
      // In quarantine every member is asked, the backup's owner too; a dying owner is asked again once gone, when
      // this node's backup may turn out to be the only copy (see onlyCopyHere).
      Optional<Acquisition> asked = unlessTheOwnerJustDied(liveOwner.get(), () -> remote.acquire(id, route));
      if (asked.isPresent()) {
        return asked.get();
      }
    }
    return remote.acquire(id, route);
  }

  /**
   * What {@code ask} (a takeover that asks {@code owner}) came to; empty when it was unavailable because the owner's
   * connection failed before the ack timeout (a closed connection, not a silence: a killed JVM's connections close
   * some 100 ms after the kill) and its host then refused a redial: it died, as the view will say in a moment.
   */
  private Optional<Acquisition> unlessTheOwnerJustDied(NodeId owner, Supplier<Acquisition> ask) {
    long asked = ticker.read();
    Acquisition answer = ask.get();
    if (answer.unavailable().isEmpty() || ticker.read() - asked >= ackTimeoutNanos || !awaitGone(owner)) {
      return Optional.of(answer);
    }
    return Optional.empty();
  }

  /**
   * In quarantine, every member answered and none knows {@code id}, of which this node holds a backup: that copy is
   * the only one. It is taken over when its owner was seen dying (its host refused it, so this node is not the one cut
   * off from it); while the owner may be alive beyond a cut, the session is unavailable until the membership settles.
   * Never absent: a new, empty session in its place would lose it (a fresh-clone CI run lost a whole session so, on a
   * buddy that had stalled past the pause threshold before its owner was killed).
   */
  private Acquisition onlyCopyHere(String id) {
    Optional<NodeId> owner = backups.entry(id).map(BackupStore.BackupEntry::owner);
    if (owner.isEmpty()) {
      return remote.takenOverMeanwhile(id); // promoted by another request meanwhile, or dropped: asked again
    }
    if (!engine.seenDying(owner.get())) {
      return Acquisition.unavailable("session " + id + " is held only here, as a backup of " + owner.get().value()
          + ", which this node, in quarantine after a pause, did not see die: it may be alive beyond a cut. It is"
          + " taken over once the membership has settled");
    }
    // Every member answered and none knows it: this copy is the only one, a leftover or not.
    return takeOverBackup(id, copy -> copy.owner().equals(owner.get())).map(Acquisition::found)
        .orElseGet(() -> remote.takenOverMeanwhile(id));
  }

  /** See {@link Handovers#heldBy}: an update, release or end of {@code id} from {@code from} at {@code epoch}. */
  @Override
  public void heldBy(NodeId from, String id, long epoch, boolean ended) {
    handovers.heldBy(from, id, epoch, ended);
  }

  /** See {@link Handovers#handing}. */
  @Override
  public Optional<SessionSnapshot> handing(String id) {
    return handovers.handing(id);
  }

  @Override
  public java.util.OptionalLong justHandedAt(String id) {
    return justHanded.valueOf(id);
  }

  /**
   * {@code admitted}, unless {@code id} was just migrated in and the holder's buddy has not answered the release of its
   * copy: then the session is served nowhere yet (see {@link HoldersBuddyReleases#pending}; docs/protocol.md 11.3.34).
   */
  Admission unlessReleasePending(String id, Admission admitted) {
    return admitted == Admission.ADMITTED && releases.pending(id)
        ? Admission.refused("session " + id + " was just migrated here and the former holder's buddy has not yet"
            + " answered the release of its copy; retry in a moment")
        : admitted;
  }

  /** {@link #unlessReleasePending(String, Admission)} of a session found owned here: no lock while none is pending. */
  Admission unlessReleasePending(OwnedSession session, Admission admitted) {
    return releases.anyPending() ? unlessReleasePending(session.id(), admitted) : admitted;
  }

  /** See {@link HoldersBuddyReleases#yieldsTo}. */
  @Override
  public boolean yieldsTo(NodeId from, String id, long epoch) {
    return releases.yieldsTo(from, id, epoch);
  }

  /** How many sessions handed out are not yet known to be held by their requesters. */
  int handoversUndecided() {
    return handovers.undecided();
  }

  /**
   * The maintenance tick: decides the handovers that waited too long, and sends again the releases of sessions
   * migrated in that were not answered.
   */
  void tick() {
    handovers.tick();
    releases.resendUnanswered();
  }

  /**
   * A graceful leave, before the owned sessions are handed to the buddy: waits at most {@code nanos} for every pending
   * handover to be decided as it would be otherwise (a session taken back is handed off with the others) and for the
   * releases that end them to be answered. One still undecided keeps its former buddy's copy: the requester may never
   * have had the session. It waits as long for the releases of the sessions migrated in here (11.3.34): forgotten as
   * this node leaves, the holder's buddy's copy would stay, adoptable beside the buddy this node hands them to should
   * the holder die (docs/protocol.md 11.3.41).
   */
  void leaving(long nanos) {
    long deadline = ticker.read() + nanos;
    CompletableFuture<Void> never = new CompletableFuture<>();
    long resentAt = ticker.read();
    while ((handovers.unsettled() || releases.anyPending()) && ticker.read() < deadline) {
      handovers.tick();
      if (ticker.read() - resentAt >= resendEveryNanos) {
        releases.resendUnanswered(); // a buddy that answers "retry" at once is asked once a tick, not a poll
        resentAt = ticker.read();
      }
      try {
        waiter.await(never, Math.min(deadline - ticker.read(), LEAVING_POLL_NANOS));
      } catch (TimeoutException | ExecutionException e) {
        // polled again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    if (handovers.undecided() > 0) {
      LOG.log(Level.WARNING, "Node {0} leaves with {1} sessions handed out and not known to be held by their requesters;"
          + " their former buddies keep their copies", local.value(), handovers.undecided());
    }
    if (releases.anyPending()) {
      LOG.log(Level.WARNING, "Node {0} leaves with sessions migrated in whose former holder''s buddy has not answered the"
          + " release of its copy; that copy stays there", local.value());
    }
  }

  /** How often a leave looks at its handovers again while it waits for them. */
  private static final long LEAVING_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
}
