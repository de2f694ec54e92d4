package io.tandem.core.replicator;

import io.tandem.core.config.ReplicationConfig;
import io.tandem.core.ring.BuddyRing;
import io.tandem.core.session.SessionSnapshot;
import io.tandem.core.spi.MembershipView;
import io.tandem.core.spi.NodeId;
import io.tandem.core.spi.Transport;
import io.tandem.core.spi.Waiter;
import io.tandem.core.wire.Message;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The releases a node sends, as it installs a session a member handed it ({@link RemoteTakeover}), of the copy that
 * holder's buddy keeps (docs/protocol.md 11.3.34). Until that buddy answers, the session is served nowhere here
 * ({@link #pending}): served, the copy over there could be adopted at this node's epoch beside it, should the holder
 * die before its handover ends. A release not answered is sent again by the maintenance tick while its buddy is in the
 * view ({@link #resendUnanswered}); a refusal at this node's epoch or above ({@code STALE_EPOCH}) shows the buddy
 * adopted the session first, and fences it here ({@link #claimedThere}).
 *
 * <p>Implementation notes: two concurrent structures. {@code releasing} maps a session id to its one pending release;
 * it is written by the request thread (or the transport thread, for a late answer) that installs the session, and an
 * entry is removed, with {@code remove(key, value)} so that only the release it was read as goes, by the thread that
 * sees its answer or by the maintenance tick when the buddy left. {@code unanswered} holds the releases whose exchange
 * failed; whichever thread removes one from it (the tick, or a graceful leave's wait) sends it again. No lock is held
 * here; a send never waits, and {@link #release} waits (at most one ack timeout) only on the request thread.
 */
final class HoldersBuddyReleases {
  /** The engine's logger: operators find these lines where they always were. */
  private static final Logger LOG = System.getLogger(ReplicationEngine.class.getName());

  private final ReplicationConfig config;
  private final Transport transport;
  private final NodeId local;
  private final OwnedSessions owned;
  private final Supplier<MembershipView> view;
  /** Lets go of a session installed here that the holder's buddy turned out to own. */
  private final BiConsumer<OwnedSession, String> fence;
  private final Waiter waiter;
  /** The pending release of each session installed here, by id, until its answer came. */
  private final Map<String, Release> releasing = new ConcurrentHashMap<>();
  /** Those of {@link #releasing} whose exchange failed (lost, timed out): sent again by the maintenance tick. */
  private final Set<Release> unanswered = ConcurrentHashMap.newKeySet();

  /**
   * A release of {@code buddy}'s copy of {@code session}, installed here from {@code moved} (the holder's epoch
   * {@code heldAt}); {@code version} is the session's when installed.
   */
  private record Release(NodeId buddy, OwnedSession session, long version, long heldAt, SessionSnapshot moved) {}

  HoldersBuddyReleases(ReplicationConfig config, Transport transport, OwnedSessions owned,
      Supplier<MembershipView> view, BiConsumer<OwnedSession, String> fence, Waiter waiter) {
    this.config = config;
    this.transport = transport;
    this.local = transport.localNode();
    this.owned = owned;
    this.view = view;
    this.fence = fence;
    this.waiter = waiter;
  }

  /**
   * The holder's buddy, which drops its copy before this node serves the session: should the holder die before its
   * handover ends, that buddy would adopt the copy at this node's epoch, a second owner beside this one (the
   * simulation found this). Its copy is only needed when this node never installed the session, and then nothing is
   * sent. Not this node's own buddy, which is sent the session at the new epoch anyway.
   *
   * <p>A holder the view dropped since it was asked is looked up in {@code askedIn}, the view it was asked in: its
   * buddy there adopts the holder's copies once its own view drops the holder, at the epoch this node claimed, and,
   * not told, served the session beside this one, neither knowing of the other (the simulation, seed 1631 of the
   * nemesis's second generation; 11.3.48). Told, it gives the copy up, or says it owns the session now and this node
   * gives way. Empty when the holder is in neither view, or its buddy there is no member now.
   */
  Optional<NodeId> holdersBuddy(NodeId holder, MembershipView askedIn) {
    MembershipView current = view.get();
    if (current == null) {
      return Optional.empty();
    }
    MembershipView holdersRing = current.contains(holder) ? current : askedIn;
    if (holdersRing == null || !holdersRing.contains(holder)) {
      return Optional.empty();
    }
    return BuddyRing.buddyOf(holdersRing, holder)
        .filter(b -> !b.equals(local) && current.contains(b) && !BuddyRing.buddyOf(current, local).map(b::equals).orElse(false));
  }

  /**
   * Releases {@code buddy}'s copy of {@code session}, just installed here from {@code moved} (the holder's epoch
   * {@code heldAt}). On the request thread ({@code await}), waits at most one ack timeout for the answer, and returns
   * why the session is that buddy's if it refused the release at this node's epoch or above (the caller fences it).
   */
  Optional<String> release(NodeId buddy, OwnedSession session, SessionSnapshot moved, long heldAt, boolean await) {
    Release release = new Release(buddy, session, moved.version(), heldAt, moved);
    releasing.put(moved.id(), release);
    CompletableFuture<Message> released = send(release);
    if (!await) {
      return Optional.empty();
    }
    Optional<String> claimed = claimedThere(released, buddy, moved, true);
    if (claimed.isEmpty() && released.isDone() && !released.isCompletedExceptionally()
        && endsTheRelease(released.join())) {
      releasing.remove(moved.id(), release); // answered (its own callback may not have run yet on the answering thread)
    }
    return claimed;
  }

  /**
   * Sends {@code release} to the holder's buddy. An answer ends it: a refusal at this node's epoch or above fences the
   * session first (11.3.27), then the release stops being pending. A failed exchange (a lost message, a timeout) leaves
   * it pending, sent again by the maintenance tick ({@link #resendUnanswered}).
   */
  private CompletableFuture<Message> send(Release release) {
    String id = release.moved().id();
    CompletableFuture<Message> released = transport.request(release.buddy(), new Message.Invalidate(id,
        release.heldAt(), release.moved().version(), Message.InvalidateReason.RELEASED));
    released.whenComplete((answer, failure) -> {
      if (endsTheRelease(answer)) {
        // Fenced before the session is served: the pending release keeps every request out until it is removed.
        claimedThere(released, release.buddy(), release.moved(), false)
            .ifPresent(why -> fence.accept(release.session(), why));
        releasing.remove(id, release);
      } else {
        unanswered.add(release); // lost, or refused for now ("retry": the buddy is letting go, or unconfirmed)
      }
    });
    return released;
  }

  /**
   * Whether {@code answer} settles a release: acknowledged, refused because the buddy holds the session at this node's
   * epoch or above ({@code STALE_EPOCH}: see {@link #claimedThere}), or nothing of it there ({@code INVALIDATED},
   * {@code UNKNOWN_SESSION}). A {@code REFUSED} asks to retry (the buddy is letting go of its own copy, or holds it
   * unconfirmed after a pause), and a failed exchange says nothing.
   */
  private static boolean endsTheRelease(Message answer) {
    return answer instanceof Message.Ack || answer instanceof Message.Nack nack
        && (nack.reason() == Message.Nack.Reason.STALE_EPOCH || nack.reason() == Message.Nack.Reason.INVALIDATED
        || nack.reason() == Message.Nack.Reason.UNKNOWN_SESSION);
  }

  /**
   * The maintenance tick: sends again each release that was not answered, while its buddy is in the view, whatever
   * became of the session here (handed on, ended: the buddy's copy could still be adopted beside its next owner);
   * forgets it once the buddy left the view (it holds nothing it could adopt here).
   */
  void resendUnanswered() {
    if (unanswered.isEmpty()) {
      return;
    }
    MembershipView current = view.get();
    for (Release release : List.copyOf(unanswered)) {
      if (!unanswered.remove(release)) {
        continue; // sent again by another thread meanwhile (the tick, or a graceful leave's wait)
      }
      String id = release.moved().id();
      if (releasing.get(id) != release) {
        continue;
      }
      if (current != null && current.contains(release.buddy())) {
        send(release);
      } else {
        releasing.remove(id, release);
      }
    }
  }

  /**
   * Whether {@code later}, handed here by one member after the request that asked had given up, replaces the session
   * another member handed here: it is at a later epoch, and the one installed was never served (its release is still
   * pending) nor written. Two members can each hand the session over, both asked by one request's hop: the holder,
   * late, at its epoch + 1, and its buddy, which adopted it when the holder died and wrote to it, at the epoch after
   * that. Ignored, the later copy was lost with what that buddy had acknowledged, for the buddy let go of it once this
   * node answered that it owned the session at the buddy's own epoch (soak seed 398513, docs/protocol.md 11.3.40).
   */
  boolean supersedes(String id, SessionSnapshot later) {
    Release release = releasing.get(id);
    return release != null && release.session().epoch() < later.epoch()
        && release.session().version() == release.version()
        && owned.get(id).map(session -> session == release.session()).orElse(false);
  }

  /** Whether a request for {@code id} must wait: its release of the holder's buddy's copy is not answered yet. */
  boolean pending(String id) {
    return !releasing.isEmpty() && releasing.containsKey(id);
  }

  /** Whether any release is pending: read by every request, so a map's emptiness, without a lock. */
  boolean anyPending() {
    return !releasing.isEmpty();
  }

  /**
   * Whether this node, owning {@code id} at {@code epoch}, must let go of it for the copy {@code from} sends at that
   * epoch: {@code from} is the holder's buddy this node's release of {@code id} has not reached yet, and it could only
   * hold the session at this epoch by adopting its copy, its owner dead, before the release came; the release's
   * answer ({@code STALE_EPOCH}) would fence this node's copy a moment later, while its refusal of that buddy's copy
   * fenced the buddy's: both let go, and the session was found nowhere (soak seed 217382, docs/protocol.md 11.3.32).
   * Only while nothing was written here since the session was installed: what this node acknowledged is never yielded.
   */
  boolean yieldsTo(NodeId from, String id, long epoch) {
    Release release = releasing.get(id);
    return release != null && release.buddy().equals(from) && release.session().epoch() == epoch
        && release.session().version() == release.version();
  }

  /**
   * What the holder's buddy answered its release, waiting at most one ack timeout when {@code await}: a release that
   * reached it after the holder's death, once it had adopted its copy at this node's epoch, is refused {@code
   * STALE_EPOCH} at that epoch or above, and the session is that buddy's (returned: why). Sent without waiting, the
   * release came too late and both served writes at one epoch (soak seed 92349, docs/protocol.md 11.3.27). A buddy
   * that does not answer in time leaves the window open: the session is served as before.
   */
  private Optional<String> claimedThere(CompletableFuture<Message> released, NodeId buddy, SessionSnapshot moved,
      boolean await) {
    try {
      Message answer = await ? waiter.await(released, config.ackTimeout().toNanos()) : released.getNow(null);
      if (answer instanceof Message.Nack nack && nack.reason() == Message.Nack.Reason.STALE_EPOCH
          && nack.epoch() >= moved.epoch()) {
        return Optional.of(buddy.value() + " owns it at epoch " + nack.epoch() + " (this node had epoch "
            + moved.epoch() + ")");
      }
    } catch (ExecutionException | TimeoutException e) {
      LOG.log(Level.DEBUG, "Session [{0}]: {1} did not answer its release: {2}", moved.id(), buddy.value(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.empty();
  }
}
