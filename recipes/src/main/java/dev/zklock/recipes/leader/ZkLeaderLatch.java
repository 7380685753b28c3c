package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockCore;
import dev.zklock.recipes.locks.engine.LockPath;
import java.io.Closeable;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatch.CloseMode;
import org.apache.curator.framework.recipes.leader.LeaderLatch.State;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;

/**
 * A participant in a leader election on a ZooKeeper path: the zklock counterpart of Curator's {@code LeaderLatch}, with
 * an epoch for every term and a bounded step-down.
 *
 * <h2>Semantics</h2>
 *
 * <p>Once started, the latch holds a place in the election's queue: a protected {@code EPHEMERAL_SEQUENTIAL} node
 * {@code _c_<uuid>-latch-<sequence>} under the latch path (container parents), whose data is the participant id in
 * UTF-8, exactly as Curator's {@code LeaderLatch} lays it out. The participant whose node is first leads; the others
 * each watch the node just before theirs. So zklock and Curator latches on one path elect one leader among them
 * ({@code LeaderLatchInteropTest}). The queue is the lock engine's: a term is a hold of an exclusive lock named
 * {@code latch-} on the path, granted only while the client is started, the connection is up and the node is ours and
 * held, as every zklock lock's.
 *
 * <p>Every term has an <b>epoch</b>, {@link #epoch()}: the fencing token of its hold ({@code FencingToken}), made of
 * the creation zxid of its node, so it is larger for every later term on the path, in any process
 * ({@code ZkLeaderLatchTest.participants_closedOneByOne_leadOneAtATimeWithGrowingEpochs}). Fence what a leader writes
 * with it: a store that refuses an epoch smaller than the largest it accepted refuses a deposed leader's late write.
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; leadership belongs to the instance, not to a thread.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <ul>
 *   <li>{@link #start()} with no one ahead: one round trip (a create and a listing, pipelined), then one data read,
 *       not waited for, that watches our own node for a delete by another client;
 *   <li>waiting: the lock engine's wait, one data read that watches the node just before ours (and our own, sent
 *       with it); when that node goes, leadership is taken with no further request if it was the only node ahead,
 *       else after one listing;
 *   <li>{@link #close()}: one delete (of our node, or of the node of an entry still waiting, with one watch removal);
 *       {@link #yield()}: a new entry as {@link #start()}'s, then one delete sent behind it. Either passes leadership in one
 *       round trip: the next participant watches our node and is granted on its delete with no request of its own
 *       ({@code LeaderHandOverTest.closeAndYield_passLeadershipOnOneDeleteEach}: from the call to the next
 *       participant's {@code isLeader}, 1.4 to 3.9 ms at p50 over 20 hand-overs each in twelve runs on one 2-core
 *       machine shared with other builds, and at most 62 ms, once, under that load; 30 ms or less in the other runs);
 *   <li>{@link #leader()}: two round trips (one listing, one data read of the first node); see {@link #leader()};
 *   <li>{@link #getLeader()}: one listing and one data read; {@link #getParticipants()}: one listing and one data read
 *       per participant, as Curator's;
 *   <li>{@link #hasLeadership()}, {@link #epoch()}, {@link #getId()}, {@link #getState()}: none.
 * </ul>
 *
 * <p>So a term of a participant alone, from {@code start} to {@code close}, costs 4 requests, as a Curator
 * {@code LeaderLatch}'s does ({@code LeaderLatchRequestCountTest}: 3.98 to 4.00 against Curator's 4.00).
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>A leader is told {@code notLeader} the moment its hold leaves HELD. A suspension pauses its term: the node is kept,
 * as Curator's latch keeps it, and the leader is told {@code isLeader} again, with the same epoch, if the node is found
 * standing on the same session once the connection is back (no one can have led meanwhile: the node stood first
 * throughout); a lost session or node ends the term, and the participant enters again with a new node and a larger
 * epoch:
 *
 * <ul>
 *   <li>when the connection is suspended (Curator's client says SUSPENDED when the server has not answered for two
 *       thirds of the session timeout, or at once when the connection breaks), the hold is IN_DOUBT: the leader steps
 *       down then ({@code LeaderLatchFaultsTest.leader_whenConnectionIsSuspended_stepsDownAndLeadsAgainOnItsNode}),
 *       and the server ends the session, so that another participant can be granted, no sooner than a full session
 *       timeout after the last request it heard from us. <b>The step-down gap</b>: a leader stops leading about a
 *       third of the session timeout before any other participant can be granted, less the time between the last
 *       request the server heard from us and the last reply we heard from it (a round trip while we talk; up to a
 *       ping interval, another third, if the last thing we heard was a watch event) and less the time it takes to
 *       tell the leader ({@code LeaderLatchFaultsTest.leader_whenItsConnectionIsCut_stepsDownBeforeAnotherIsGranted}:
 *       with a 4 s session, told 2.65 to 2.67 s after the cut, the next leader 3.9 to 4.9 s after it, a gap of 1.25
 *       to 2.19 s, in six runs). Fence the leader's writes with its epoch for what the gap cannot cover: a pause
 *       between a check of {@link #hasLeadership()} and the write it allows. A process paused past half its session
 *       reads IN_DOUBT from the first look after the pause ({@link #hasLeadership()} is false) until the client
 *       settles its session. A client whose error policy is Curator's {@code SessionConnectionStateErrorPolicy}
 *       keeps the term instead, with no {@code notLeader}, through a suspension its session survives, as Curator's
 *       latch does ({@code LeaderCuratorScenariosTest.latchAndSelector_withTheSessionErrorPolicy_keepTheirTermsThroughASuspension}),
 *       and steps down only at LOST: the bound is the session's end then;
 *   <li>when the session ends (LOST), the leader steps down if it has not already. A session ended by the server
 *       while its connection is up (closed from outside, not timed out) leaves no gap: the next participant may be
 *       granted before the leader's client hears of it
 *       ({@code LeaderLatchFaultsTest.leader_whenSessionExpires_stepsDownAndAnotherLeads}: the next leader 6 to 13 ms
 *       after the expiry, the old one told 105 to 109 ms after it, in six runs), which is what the epoch is for;
 *   <li>when another client deletes the leader's node (an operator, a reaper), the watch on our own node tells the
 *       leader at once; there is no gap then, for the next participant hears of the same delete
 *       ({@code LeaderLatchFaultsTest.leader_whoseNodeAStrangerDeletes_stepsDownAndEntersAgain}).
 * </ul>
 *
 * <p>A participant whose session ends while it waits enters again with a new node, and nothing reports leadership
 * without a live node of its own
 * ({@code LeaderLatchFaultsTest.candidate_whoseSessionEndsWhileQueued_entersAgainWithANewNode}). A failed entry (say,
 * the ACL refuses the create) is logged and tried again a second later, while the client is open. {@link #close()}
 * deletes our node, or withdraws an entry still waiting, so the next participant leads at once
 * ({@code ZkLeaderLatchTest.close_ofTheLeader_passesLeadershipToTheNext}); closing the client ends the session and
 * with it our node.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * try (ZkLeaderLatch latch = new ZkLeaderLatch(client, "/services/billing/leader", "host-1")) {
 *     latch.start();
 *     latch.await();
 *     store.write(batch, latch.epoch()); // the store refuses an epoch below the largest it saw
 * }
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkLeaderLatch implements Closeable {
    private static final String LOCK_NAME = "latch-";

    private final String id;
    private final CloseMode closeMode;
    private final LockPath path;
    private final LatchListeners listeners;
    private final LatchCandidate candidate;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final ShutdownClose shutdown = new ShutdownClose();

    /**
     * Creates a participant with a random id (a UUID) and {@link CloseMode#SILENT}. No ZooKeeper call. (Curator's
     * counterpart gives the empty id, which {@link #getLeader()} cannot tell from its stand-in for no leader.)
     *
     * @param client the client to use; its namespace and ACL provider apply
     * @param latchPath the path of the election, absolute, relative to the client's namespace
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code latchPath} is not a valid ZooKeeper path
     */
    public ZkLeaderLatch(CuratorFramework client, String latchPath) {
        this(client, latchPath, UUID.randomUUID().toString(), CloseMode.SILENT);
    }

    /**
     * Creates a participant named {@code id}, with {@link CloseMode#SILENT}. No ZooKeeper call.
     *
     * @param client the client to use; its namespace and ACL provider apply
     * @param latchPath the path of the election, absolute, relative to the client's namespace
     * @param id the participant id, the data of our node; may be empty, as with Curator
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code latchPath} is not a valid ZooKeeper path
     */
    public ZkLeaderLatch(CuratorFramework client, String latchPath, String id) {
        this(client, latchPath, id, CloseMode.SILENT);
    }

    /**
     * Creates a participant named {@code id} whose {@link #close()} tells listeners as {@code closeMode} says. No
     * ZooKeeper call.
     *
     * @param client the client to use; its namespace and ACL provider apply
     * @param latchPath the path of the election, absolute, relative to the client's namespace
     * @param id the participant id, the data of our node; may be empty, as with Curator
     * @param closeMode whether {@link #close()} tells a leader's listeners {@code notLeader}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code latchPath} is not a valid ZooKeeper path
     */
    public ZkLeaderLatch(CuratorFramework client, String latchPath, String id, CloseMode closeMode) {
        Objects.requireNonNull(client, "client");
        Checks.lockPath(latchPath);
        this.id = Objects.requireNonNull(id, "id");
        this.closeMode = Objects.requireNonNull(closeMode, "closeMode");
        this.listeners = new LatchListeners(latchPath);
        List<LockStateListener> stateListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
        this.path = new LockPath(
                client,
                latchPath,
                LOCK_NAME,
                LockDriver.exclusive(),
                id.getBytes(StandardCharsets.UTF_8),
                stateListeners);
        this.candidate = new LatchCandidate(LockCore.of(path), id, listeners);
        stateListeners.add(candidate::stateChanged);
    }

    /**
     * Enters the election: our node is created in the background, and listeners hear {@code isLeader} once it leads.
     * Returns at once.
     *
     * @throws IllegalStateException if the latch was started before, or the client is not started or is closed
     */
    public void start() {
        Checks.requireStarted(path.client(), path.path());
        State was = state.compareAndExchange(State.LATENT, State.STARTED);
        Checks.requireState(
                was == State.LATENT,
                "leader latch '%s' of participant '%s' cannot be started: it is %s, and starts once",
                path.path(),
                id,
                was);
        candidate.start();
    }

    /**
     * Leaves the election with this latch's close mode; see {@link #close(CloseMode)}.
     *
     * @throws IllegalStateException if the latch was never started or is closed already
     */
    @Override
    public void close() {
        close(closeMode);
    }

    /**
     * Leaves the election: our node's delete is sent (or an entry still waiting is withdrawn), and with
     * {@link CloseMode#NOTIFY_LEADER} a leader's listeners hear {@code notLeader}; with {@link CloseMode#SILENT} they hear
     * nothing ({@code ZkLeaderLatchTest.close_notifyLeader_tellsTheLeaderNotLeader},
     * {@code ZkLeaderLatchTest.close_silent_tellsListenersNothing}). No listener hears anything afterwards. Returns once
     * that is done, but without waiting for the delete's reply; called from a listener that runs on the latch's own
     * thread, it returns at once and that is done right after the listener.
     *
     * @param closeMode whether a leader's listeners hear {@code notLeader}
     * @throws NullPointerException if {@code closeMode} is null
     * @throws IllegalStateException if the latch was never started or is closed already
     */
    public void close(CloseMode closeMode) {
        Objects.requireNonNull(closeMode, "closeMode");
        State was = state.compareAndExchange(State.STARTED, State.CLOSED);
        Checks.requireState(
                was == State.STARTED,
                "leader latch '%s' of participant '%s' cannot be closed: it is %s",
                path.path(),
                id,
                was == State.LATENT ? "LATENT (never started)" : was);
        shutdown.remove();
        candidate.close(closeMode == CloseMode.NOTIFY_LEADER);
    }

    /**
     * Gives up the current term, if this participant leads, and enters the election again at the back of the queue:
     * listeners hear {@code notLeader}, and the participant next in line leads on our node's delete
     * ({@code LeaderHandOverTest.yield_ofTheLeader_passesLeadershipToTheNext}); a participant alone leads again, with a
     * larger epoch ({@code LeaderHandOverTest.yield_ofALatchAlone_leadsAgainWithALargerEpoch}). A term paused by a
     * suspension is given up too. Nothing if it holds no term. Returns once the new create and the delete are sent, not
     * answered (at once from a listener on the latch's thread). A new entry (a create and a listing, pipelined), then
     * the old node's delete sent behind it on the same session: our new node stands before anyone hears of the delete,
     * so the participant queues behind everyone queued when it yielded, and no one who yields after it passes it
     * ({@code LeaderCuratorScenariosTest.latches_yieldingFromIsLeader_passLeadershipRoundOneAtATime}). A participant
     * alone waits for its old node's delete: one watch and its event more than a first entry.
     *
     * @throws IllegalStateException if the latch is not started or is closed
     */
    public void yield() {
        State now = state.get();
        Checks.requireState(
                now == State.STARTED,
                "leader latch '%s' of participant '%s' cannot yield: it is %s",
                path.path(),
                id,
                now);
        candidate.yieldTerm();
    }

    /**
     * Adds a JVM shutdown hook that closes this latch, waiting for the delete of its node (at most one request
     * timeout), so that a deploy's restart passes leadership at once instead of after the session times out; the hook
     * is removed when the latch is closed, so none outlives it
     * ({@code LeaderHandOverTest.closeOnShutdown_hookClosesTheLatchAndCloseRemovesIt}). A second call does nothing. No
     * ZooKeeper call.
     *
     * @return this latch
     * @throws IllegalStateException if the latch is closed
     */
    public ZkLeaderLatch closeOnShutdown() {
        State now = state.get();
        Checks.requireState(
                now != State.CLOSED,
                "leader latch '%s' of participant '%s' cannot close on shutdown: it is %s",
                path.path(),
                id,
                now);
        shutdown.register("zklock-leader-latch-shutdown " + path.path(), () -> {
            if (state.compareAndSet(State.STARTED, State.CLOSED)) {
                candidate.close(closeMode == CloseMode.NOTIFY_LEADER, true);
            }
        });
        return this;
    }

    /** The shutdown hook, or null: tests run it rather than exit. */
    Thread shutdownHook() {
        return shutdown.hook();
    }

    /**
     * Waits until this participant leads. Returns at once if it leads; otherwise waits until one of these:
     *
     * <ul>
     *   <li>it leads: returns;
     *   <li>the latch is closed: {@link EOFException};
     *   <li>the thread is interrupted: {@link InterruptedException}, with the interrupt status cleared.
     * </ul>
     *
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     * @throws EOFException if the latch is not started or is closed, on entry or while waiting (Curator's signal)
     */
    public void await() throws InterruptedException, EOFException {
        if (state.get() != State.STARTED || !candidate.awaitLeadership(0, false)) {
            throw new EOFException("leader latch '" + path.path() + "' of participant '" + id + "' is " + state.get());
        }
    }

    /**
     * Waits at most {@code timeout} until this participant leads. As {@link #await()}, but for how it ends: a
     * timeout that is zero or negative means a look without waiting
     * ({@code ZkLeaderLatchTest.await_withTimeout_returnsFalseWhileAnotherLeads}).
     *
     * @param timeout the longest wait
     * @param unit the unit of {@code timeout}
     * @return true if it leads; false if the time passed first, or the latch is not started or is closed
     * @throws NullPointerException if {@code unit} is null
     * @throws InterruptedException if the thread is interrupted on entry or while waiting
     */
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = Checks.toNanos(timeout, unit);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting on leader latch '" + path.path() + "'");
        }
        return state.get() == State.STARTED && candidate.awaitLeadership(nanos, true);
    }

    /**
     * Tells whether this participant leads now: it was told {@code isLeader}, the latch is open and its hold is HELD
     * (false from the moment the connection is suspended). For monitoring and for a check before each step of a
     * leader's work; fence the work itself with {@link #epoch()}. No ZooKeeper call.
     *
     * @return whether it leads
     */
    public boolean hasLeadership() {
        return candidate.hasLeadership();
    }

    /**
     * Returns the epoch of the current term: the fencing token of its hold, larger for every later term on this path.
     * No ZooKeeper call.
     *
     * @return the epoch
     * @throws IllegalStateException if this participant does not lead now (as {@link #hasLeadership()} says)
     */
    public long epoch() {
        Hold term = candidate.leadingTerm();
        Checks.requireState(
                term != null,
                "participant '%s' of leader latch '%s' does not lead now (latch %s): no epoch",
                id,
                path.path(),
                state.get());
        return term.token();
    }

    /**
     * Returns the participant whose node is first, as Curator's {@code getLeader} does: it may differ from what
     * {@link #hasLeadership()} says while news travels. With no node, an empty id that is not the leader
     * ({@code ZkLeaderLatchTest.getLeader_onAPathNoOneUses_returnsAnEmptyNonLeader}). One listing and one data read.
     *
     * @return the leader
     * @throws IllegalStateException if the client is not started or is closed
     * @throws InterruptedException if the thread is interrupted meanwhile
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    public Participant getLeader() throws InterruptedException {
        return Participants.leader(path);
    }

    /**
     * Returns who leads and in which term: the id and epoch of the participant whose node is first, zklock's or
     * Curator's ({@code LeaderReadTest.leader_ofALatch_isTheLeadersIdAndEpoch},
     * {@code LeaderReadTest.leader_ofACuratorLatch_isItsIdAndTheEpochOfItsNode}); empty with no node
     * ({@code LeaderReadTest.leader_onAPathNoOneUses_isEmpty}). Two round trips, one listing then one data read of the
     * first node (whose stat gives the creation zxid the epoch is made of), and one more read per node at the front
     * gone meanwhile: not one, for a listing gives names only, neither data nor creation zxids, and a read needs the
     * name first. The leader itself knows both for nothing ({@link #getId()}, {@link #epoch()}); a
     * {@link ZkLeaderObserver} keeps them at no request per read.
     *
     * @return the leader, or empty if no participant stands
     * @throws IllegalStateException if the client is not started or is closed
     * @throws InterruptedException if the thread is interrupted meanwhile
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    public Optional<Leader> leader() throws InterruptedException {
        return Participants.current(path);
    }

    /**
     * Starts a {@link ZkLeaderObserver} of this latch's election on its client: {@code listener} hears each term's
     * GRANTED and REVOKED, in order, on the observer's thread
     * ({@code ZkLeaderObserverTest.observe_leadersClosedOneByOne_toldGrantedThenRevokedInOrder}). The observer is apart
     * from the latch: close it. One listing and one data read to start.
     *
     * @param listener told each change
     * @return the observer
     * @throws NullPointerException if {@code listener} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public ZkLeaderObserver observe(Consumer<LeaderChanged> listener) {
        return ZkLeaderObserver.observe(path.client(), path.path(), listener);
    }

    /**
     * Returns every participant in queue order, the leader first
     * ({@code ZkLeaderLatchTest.getParticipants_listEveryIdWithTheLeaderFirst}). One listing and one data read per
     * participant.
     *
     * @return the participants
     * @throws IllegalStateException if the client is not started or is closed
     * @throws InterruptedException if the thread is interrupted meanwhile
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    public Collection<Participant> getParticipants() throws InterruptedException {
        return Participants.of(path);
    }

    /**
     * Adds a listener, told {@code isLeader} and {@code notLeader} on the latch's own thread, in order; adding it again
     * does nothing. It must not block that thread for long: the latch's step-downs wait behind it (give an executor). A
     * {@link LeaderTermListener} hears each term's epoch and why it ended too.
     *
     * @param listener the listener
     * @throws NullPointerException if {@code listener} is null
     */
    public void addListener(LeaderLatchListener listener) {
        listeners.add(listener, null);
    }

    /**
     * Adds a listener run on {@code executor}; adding it again does nothing. A single-threaded executor keeps the
     * order ({@code ZkLeaderLatchTest.listener_onItsExecutor_hearsIsLeaderThenNotLeader}).
     *
     * @param listener the listener
     * @param executor runs the listener
     * @throws NullPointerException if an argument is null
     */
    public void addListener(LeaderLatchListener listener, Executor executor) {
        listeners.add(listener, Objects.requireNonNull(executor, "executor"));
    }

    /**
     * Removes a listener; nothing if it was not added.
     *
     * @param listener the listener
     * @throws NullPointerException if {@code listener} is null
     */
    public void removeListener(LeaderLatchListener listener) {
        listeners.remove(listener);
    }

    /**
     * Returns the participant id, the data of our node.
     *
     * @return the id
     */
    public String getId() {
        return id;
    }

    /**
     * Returns the state of the latch: {@link LeaderLatch.State#LATENT} until started, then {@code STARTED}, then
     * {@code CLOSED}.
     *
     * @return the state
     */
    public State getState() {
        return state.get();
    }

    @Override
    public String toString() {
        return "ZkLeaderLatch[" + path.path() + ", id '" + id + "', " + state.get() + "]";
    }
}
