package dev.zklock.recipes.leader;

import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.engine.Checks;
import dev.zklock.recipes.locks.engine.Hold;
import dev.zklock.recipes.locks.engine.LockPath;
import java.io.Closeable;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.CancelLeadershipException;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.utils.CloseableExecutorService;
import org.apache.curator.utils.ThreadUtils;

/**
 * A participant in a leader election that runs a task while it leads: the zklock counterpart of Curator's
 * {@code LeaderSelector}, with an epoch for every term.
 *
 * <h2>Semantics</h2>
 *
 * <p>Each term takes the mutex at the leader path, laid out as Curator's selector lays it out (an
 * {@code InterProcessMutex}: protected {@code _c_<uuid>-lock-<sequence>} nodes, the id as node data when it is not
 * empty), so zklock and Curator selectors on one path take turns, never two terms at once
 * ({@code ZkLeaderSelectorTest.zklockAndCuratorSelectors_onOnePath_takeTurnsOneTermAtATime}). Once it holds the mutex,
 * the selector calls {@link LeaderSelectorListener#takeLeadership} on its executor's thread and leads until that
 * returns or throws; then it releases the mutex. With {@link #autoRequeue()} it enters again after each term, else
 * only when {@link #requeue()} asks. Every term has an epoch, {@link #epoch()}: its hold's fencing token, larger for
 * every later term ({@code ZkLeaderSelectorTest.autoRequeue_takesLeadershipAgainWithAGrowingEpoch}).
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads; a term runs on the selector's executor, one at a time.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <p>A term costs what a {@code ZkReentrantLock} acquire and release cost: one round trip to enter when no one is ahead,
 * one data read that watches the node ahead while waiting, one delete at the end. {@link #yield()}: that delete, then
 * a new entry sent behind it; with {@link #close()} and the {@linkplain #closeOnShutdown() shutdown hook}, it passes
 * leadership in one round trip once {@code takeLeadership} returns, for the next participant is granted on the delete
 * with no request of its own. {@link #getLeader()}: one listing and
 * one data read; {@link #getParticipants()}: one listing and one data read per participant.
 * {@link #hasLeadership()}, {@link #epoch()}: none.
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>The listener is registered for the client's connection states, as Curator registers it, and a
 * {@link CancelLeadershipException} it throws (as Curator's {@code LeaderSelectorListenerAdapter} does at SUSPENDED
 * and LOST) interrupts the leader's thread. Beyond Curator, the leader's thread is interrupted as soon as its hold
 * leaves HELD, whatever the listener does: IN_DOUBT when the connection is suspended (two thirds of the session
 * timeout without a reply), LOST when the session ends or another client deletes the node
 * (IN_DOUBT not with Curator's {@code SessionConnectionStateErrorPolicy}, as for the latch:
 * {@code LeaderCuratorScenariosTest.latchAndSelector_withTheSessionErrorPolicy_keepTheirTermsThroughASuspension})
 * ({@code ZkLeaderSelectorTest.leader_whenConnectionIsSuspended_isInterrupted},
 * {@code ZkLeaderSelectorTest.leader_whenSessionExpires_isInterruptedAndAnotherLeads}), and {@link #hasLeadership()} is
 * false from that moment. The step-down gap is the latch's: see {@link ZkLeaderLatch}. {@link #close()} interrupts the term
 * under way; its mutex is released when {@code takeLeadership} returns.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * ZkLeaderSelector selector = new ZkLeaderSelector(client, "/services/billing/leader", new LeaderSelectorListenerAdapter() {
 *     public void takeLeadership(CuratorFramework client) throws Exception {
 *         runTheShow(); // leads until this returns
 *     }
 * });
 * selector.autoRequeue();
 * selector.start();
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkLeaderSelector implements Closeable {
    private enum State {
        LATENT,
        STARTED,
        CLOSED
    }

    private final CuratorFramework client;
    private final LockPath path; // for the participants' listing
    private final CloseableExecutorService executor;
    private final SelectorWork work;
    private final Relay relay;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final AtomicBoolean autoRequeue = new AtomicBoolean();
    private final ShutdownClose shutdown = new ShutdownClose();
    private volatile String id = "";

    /**
     * Creates a selector whose terms run on a thread of its own. No ZooKeeper call.
     *
     * @param client the client to use
     * @param leaderPath the path of the election, absolute, relative to the client's namespace
     * @param listener told to take leadership, and of the client's connection states
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code leaderPath} is not a valid ZooKeeper path
     */
    public ZkLeaderSelector(CuratorFramework client, String leaderPath, LeaderSelectorListener listener) {
        this(
                client,
                leaderPath,
                new CloseableExecutorService(
                        Executors.newSingleThreadExecutor(ThreadUtils.newThreadFactory("ZkLeaderSelector")), true),
                listener);
    }

    /**
     * Creates a selector whose terms run on {@code executor}, as Curator's deprecated constructor of the same shape:
     * {@code threadFactory} is not used, and {@link #close()} interrupts the term under way but does not shut
     * {@code executor} down. No ZooKeeper call.
     *
     * @param client the client to use
     * @param leaderPath the path of the election, absolute, relative to the client's namespace
     * @param threadFactory unused, as by Curator
     * @param executor runs the terms
     * @param listener told to take leadership, and of the client's connection states
     * @throws NullPointerException if an argument other than {@code threadFactory} is null
     * @throws IllegalArgumentException if {@code leaderPath} is not a valid ZooKeeper path
     * @deprecated as Curator's: give an {@link ExecutorService} instead
     */
    @Deprecated
    public ZkLeaderSelector(
            CuratorFramework client,
            String leaderPath,
            ThreadFactory threadFactory,
            Executor executor,
            LeaderSelectorListener listener) {
        this(client, leaderPath, new CloseableExecutorService(new BorrowedExecutor(executor), true), listener);
    }

    /**
     * Creates a selector whose terms run on {@code executorService}, which {@link #close()} does not shut down. No
     * ZooKeeper call.
     *
     * @param client the client to use
     * @param leaderPath the path of the election, absolute, relative to the client's namespace
     * @param executorService runs the terms
     * @param listener told to take leadership, and of the client's connection states
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code leaderPath} is not a valid ZooKeeper path
     */
    public ZkLeaderSelector(
            CuratorFramework client,
            String leaderPath,
            ExecutorService executorService,
            LeaderSelectorListener listener) {
        this(
                client,
                leaderPath,
                new CloseableExecutorService(Objects.requireNonNull(executorService, "executorService")),
                listener);
    }

    /**
     * Creates a selector whose terms run on {@code executorService}, closed by {@link #close()}. No ZooKeeper call.
     *
     * @param client the client to use
     * @param leaderPath the path of the election, absolute, relative to the client's namespace
     * @param executorService runs the terms
     * @param listener told to take leadership, and of the client's connection states
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code leaderPath} is not a valid ZooKeeper path
     */
    public ZkLeaderSelector(
            CuratorFramework client,
            String leaderPath,
            CloseableExecutorService executorService,
            LeaderSelectorListener listener) {
        this.client = Objects.requireNonNull(client, "client");
        Checks.lockPath(leaderPath);
        this.executor = Objects.requireNonNull(executorService, "executorService");
        Objects.requireNonNull(listener, "listener");
        this.path = new LockPath(client, leaderPath, "lock-", LockDriver.exclusive(), null);
        this.work = new SelectorWork(
                client, leaderPath, listener, executorService, () -> state.get() == State.STARTED, autoRequeue::get);
        this.relay = new Relay(listener, work);
    }

    /** Makes the selector enter the election again after each term, until it is closed. */
    public void autoRequeue() {
        autoRequeue.set(true);
    }

    /**
     * Sets the participant id, the data of the nodes of the terms that start afterwards (none if empty, as with
     * Curator: the client's default data then).
     *
     * @param id the id
     * @throws NullPointerException if {@code id} is null
     */
    public void setId(String id) {
        this.id = Objects.requireNonNull(id, "id");
    }

    /**
     * Returns the participant id.
     *
     * @return the id, empty unless set
     */
    public String getId() {
        return id;
    }

    /**
     * Enters the election: registers the listener for the client's connection states and queues the first term.
     *
     * @throws IllegalStateException if the selector was started before, or the client is not started or is closed
     */
    public void start() {
        Checks.requireStarted(client, path.path());
        State was = state.compareAndExchange(State.LATENT, State.STARTED);
        Checks.requireState(
                was == State.LATENT,
                "leader selector '%s' of participant '%s' cannot be started: it is %s, and starts once",
                path.path(),
                id,
                was);
        client.getConnectionStateListenable().addListener(relay);
        work.requeue(id);
    }

    /**
     * Queues a term unless one is queued or under way.
     *
     * @return whether a term was queued
     * @throws IllegalStateException if the selector is not started or is closed
     */
    public boolean requeue() {
        State now = state.get();
        Checks.requireState(
                now == State.STARTED, "leader selector '%s' cannot be requeued: it is %s", path.path(), now);
        return work.requeue(id);
    }

    /**
     * Leaves the election: stops listening to the client's connection states and interrupts the term under way
     * (its mutex is released once {@code takeLeadership} returns); an executor the selector made is shut down.
     *
     * @throws IllegalStateException if the selector was never started or is closed already
     */
    @Override
    public void close() {
        State was = state.compareAndExchange(State.STARTED, State.CLOSED);
        Checks.requireState(
                was == State.STARTED,
                "leader selector '%s' of participant '%s' cannot be closed: it is %s",
                path.path(),
                id,
                was == State.LATENT ? "LATENT (never started)" : was);
        leave();
    }

    private void leave() {
        shutdown.remove();
        client.getConnectionStateListenable().removeListener(relay);
        executor.close();
        work.closed();
    }

    /**
     * Gives up the current term, if this selector leads, and enters the election again at the back of the queue,
     * whether or not it {@linkplain #autoRequeue() requeues automatically}: the term's thread is interrupted, and once
     * {@code takeLeadership} returns, the mutex's delete is sent and then the new entry's create, so the participant
     * next in line is granted on that delete with no request of its own
     * ({@code SelectorHandOverTest.yield_ofTheLeader_passesLeadershipToTheNext}); a selector alone leads again, with a
     * larger epoch ({@code SelectorHandOverTest.yield_ofASelectorAlone_leadsAgainWithALargerEpoch}). As with
     * {@link #interruptLeadership()}, the term ends only when {@code takeLeadership} returns, as its contract asks on an
     * interrupt. Nothing if it does not lead. Returns at once; one delete, then a new entry (a create and a listing,
     * pipelined).
     *
     * @return whether it led, and so yields
     * @throws IllegalStateException if the selector is not started or is closed
     */
    public boolean yield() {
        State now = state.get();
        Checks.requireState(
                now == State.STARTED,
                "leader selector '%s' of participant '%s' cannot yield: it is %s",
                path.path(),
                id,
                now);
        return work.yieldTerm();
    }

    /**
     * Adds a JVM shutdown hook that closes this selector and waits, at most one request timeout, for its term to end
     * and the delete of its mutex node to be answered, so that a deploy's restart passes leadership at once instead of
     * after the session times out; the hook is removed when the selector is closed, so none outlives it
     * ({@code SelectorHandOverTest.closeOnShutdown_hookClosesTheSelectorAndCloseRemovesIt}). The hook is
     * registered as {@link ZkLeaderLatch#closeOnShutdown()} registers it. A second call does nothing. No ZooKeeper call.
     *
     * @return this selector
     * @throws IllegalStateException if the selector is closed
     */
    public ZkLeaderSelector closeOnShutdown() {
        State now = state.get();
        Checks.requireState(
                now != State.CLOSED,
                "leader selector '%s' of participant '%s' cannot close on shutdown: it is %s",
                path.path(),
                id,
                now);
        shutdown.register("zklock-leader-selector-shutdown " + path.path(), () -> {
            if (state.compareAndSet(State.STARTED, State.CLOSED)) {
                leave();
            }
            try {
                work.awaitTaskOver(path.requestTimeoutNanos());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return this;
    }

    /** The shutdown hook, or null: tests run it rather than exit. */
    Thread shutdownHook() {
        return shutdown.hook();
    }

    /**
     * Interrupts the thread of the term under way if this selector leads
     * ({@code ZkLeaderSelectorTest.interruptLeadership_endsTheTermAndTheNextLeads}).
     */
    public void interruptLeadership() {
        work.interruptLeadership();
    }

    /**
     * Tells whether this selector leads now: a term is under way and its hold is HELD. For monitoring; no ZooKeeper
     * call.
     *
     * @return whether it leads
     */
    public boolean hasLeadership() {
        return work.leadingTerm() != null;
    }

    /**
     * Returns the epoch of the term under way: its hold's fencing token, larger for every later term. No ZooKeeper
     * call.
     *
     * @return the epoch
     * @throws IllegalStateException if this selector does not lead now
     */
    public long epoch() {
        Hold term = work.leadingTerm();
        Checks.requireState(
                term != null, "participant '%s' of leader selector '%s' does not lead now: no epoch", id, path.path());
        return term.token();
    }

    /**
     * Returns the participant whose node is first, with no node an empty id that is not the leader; as Curator's. One
     * listing and one data read.
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
     * Returns who leads and in which term: the id and epoch of the participant whose mutex node is first, zklock's or
     * Curator's ({@code LeaderReadTest.leader_ofASelector_isTheLeadersIdAndEpoch}); empty with no node. Two round trips,
     * as {@link ZkLeaderLatch#leader()}, for the same reason.
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
     * Starts a {@link ZkLeaderObserver} of this selector's election on its client: {@code listener} hears each term's
     * GRANTED and REVOKED, in order, on the observer's thread ({@code ZkLeaderObserverTest.observe_ofASelector_hearsItsTerms}).
     * The observer is apart from the selector: close it. One listing and one data read to start.
     *
     * @param listener told each change
     * @return the observer
     * @throws NullPointerException if {@code listener} is null
     * @throws IllegalStateException if the client is not started or is closed
     */
    public ZkLeaderObserver observe(Consumer<LeaderChanged> listener) {
        return ZkLeaderObserver.observe(client, path.path(), listener);
    }

    /**
     * Returns every participant in queue order, the leader first
     * ({@code ZkLeaderSelectorTest.zklockAndCuratorSelectors_onOnePath_takeTurnsOneTermAtATime}). One listing and one
     * data read per participant.
     *
     * @return the participants
     * @throws IllegalStateException if the client is not started or is closed
     * @throws InterruptedException if the thread is interrupted meanwhile
     * @throws dev.zklock.recipes.locks.ZkLockException if ZooKeeper refuses a request
     */
    public Collection<Participant> getParticipants() throws InterruptedException {
        return Participants.of(path);
    }

    @Override
    public String toString() {
        return "ZkLeaderSelector[" + path.path() + ", id '" + id + "', " + state.get() + "]";
    }

    /** Hands the client's connection states to the listener; its {@link CancelLeadershipException} ends the term. */
    private record Relay(LeaderSelectorListener listener, SelectorWork work) implements LeaderSelectorListener {
        @Override
        public void takeLeadership(CuratorFramework client) throws Exception {
            listener.takeLeadership(client);
        }

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState newState) {
            try {
                listener.stateChanged(client, newState);
            } catch (CancelLeadershipException e) {
                work.cancel();
            }
        }
    }
}
