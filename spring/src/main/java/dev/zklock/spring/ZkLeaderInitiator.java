package dev.zklock.spring;

import dev.zklock.recipes.leader.ZkLeaderSelector;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.common.PathUtils;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * Leader election for a Spring Integration {@link Candidate} on zklock's {@link ZkLeaderSelector}: the counterpart of
 * Spring's ZooKeeper {@code LeaderInitiator}, on its paths and nodes, and of {@code LockRegistryLeaderInitiator}, which
 * calls the candidate's {@code onRevoked} before the node that makes it leader is deleted.
 *
 * <h2>Semantics</h2>
 *
 * <p>{@link #start()} starts one selector, at {@code <root>/<role>} ({@value #DEFAULT_ROOT}{@code /<role>} by default,
 * as Spring's ZooKeeper initiator), with the candidate's id as the participant id (the data of its node, as Spring sets
 * it on its {@code LeaderSelector}), requeued after every term. Each term is the selector's {@code takeLeadership}: the
 * candidate hears {@code onGranted} and an {@code OnGrantedEvent} is published once it returns, as Spring's ZooKeeper
 * initiator does; when the term ends, it hears {@code onRevoked} and an {@code OnRevokedEvent} is published, and only
 * then does {@code takeLeadership} return and the node go
 * ({@code ZkLeaderInitiatorTest.stop_ofTheLeader_revokesBeforeTheNextIsGranted}). Every grant is followed by exactly
 * one revoke, in order. {@code OnFailedToAcquireMutexEvent} is never published: a selector waits in the queue for its
 * turn and never fails an attempt (an entry ZooKeeper refuses is logged and tried again). Two initiators of one role
 * on two clients elect one leader ({@code ZkLeaderInitiatorTest.twoApplications_electOneLeader}).
 *
 * <p><b>Beside Spring's ZooKeeper initiator.</b> The nodes are Curator's {@code LeaderSelector}'s, the mutex's
 * {@code _c_<uuid>-lock-<sequence>} with the candidate's id as data, so Spring's ZooKeeper {@code LeaderInitiator} and
 * this one on one role's path elect one leader among them and take turns, and each lists the other's candidate by its
 * id: a fleet moves from Spring's initiator to this one an application at a time
 * ({@code ZkLeaderInitiatorTest.springsZooKeeperInitiator_onOurPath_takesTurnsWithOursOneLeaderAtATime}: ten hand-overs
 * by yield and by stop, never two leaders, each next {@code onGranted} 1.0 to 25 ms after the old {@code onRevoked}
 * returned, in seven runs). Unlike Spring's, a root must be absolute (Spring adds the leading slash).
 *
 * <p><b>Order on the way out.</b> When the leader steps down of its own accord ({@link #stop()},
 * {@link Context#yield()}), {@code onRevoked} runs and returns before the delete of its node is sent, so no other
 * candidate is granted until the old leader's {@code onRevoked} has returned
 * ({@code ZkLeaderInitiatorTest.stop_ofTheLeader_revokesBeforeTheNextIsGranted},
 * {@code ZkLeaderInitiatorTest.yield_ofTheLeader_revokesBeforeTheNextIsGranted},
 * {@code ZkLeaderInitiatorTest.yield_backAndForth_neverGrantsBeforeTheOldOnRevokedReturned}: on this shared machine, in
 * seven runs, the next {@code onGranted} came 1.0 to 3.8 ms after the old {@code onRevoked} returned on a stop or a
 * yield; over twenty yields back and forth, 1.2 to 3.1 ms at the median, 0.8 ms at the least, 1.6 to 26 ms at the
 * most). Spring's {@code LockRegistryLeaderInitiator} unlocks first, and grants the next while the old
 * {@code onRevoked} still runs
 * ({@code LeaderElectionTest.stop_ofTheLeader_grantsTheNextWhileTheOldOnRevokedStillRuns}). When the leader is cut off
 * it cannot wait for anything: it is told at the first sign, the hold's IN_DOUBT, when Curator's client says SUSPENDED,
 * two thirds of the session timeout after the server last answered (the selector interrupts the term). <b>The
 * bound</b>: {@code onRevoked} has then until the server ends the session, about the last third of the session timeout
 * (less the time between the last request the server heard and the last reply we heard), before another candidate can
 * be granted ({@code ZkLeaderInitiatorTest.silentNetwork_stepsTheLeaderDownBeforeTheOtherIsGranted}: with a 2 s
 * session, {@code onRevoked} returned 1.23 to 1.26 s after the cut and the next was granted 1.81 to 1.91 s after it,
 * 0.57 to 0.66 s later, in seven runs); work that may outlast that must be fenced with the term's epoch,
 * {@link LeaderContext#epoch()}. When the session ends or another client deletes the node, the node is gone already
 * when {@code onRevoked} runs, and the next candidate may be granted first: a session the server ends while the
 * connection is up leaves no gap
 * ({@code ZkLeaderInitiatorTest.sessionExpiry_ofTheLeader_revokesItAndTheOtherLeadsWithALargerEpoch}: the next granted
 * 87 to 103 ms before the old {@code onRevoked} returned, in seven runs), which is what the epoch is for. After any
 * step-down but {@link #stop()} the candidate enters again with a new node
 * ({@code ZkLeaderInitiatorTest.stop_thenStartAgain_leadsAgain} shows a stopped one started again).
 *
 * <h2>Thread safety</h2>
 *
 * <p>Instances are safe for use by multiple threads. The candidate's callbacks and the events run on one thread of the
 * initiator's own ({@code zklock-leader-initiator <path>}), one at a time, never on ZooKeeper's or Curator's threads
 * nor on the selector's ({@code zklock-leader-selector <path>}, which waits out each term);
 * {@code onGranted} may do the leader's work on it until interrupted, as Spring's {@link Candidate} contract allows:
 * the thread is interrupted when the term ends.
 *
 * <h2>ZooKeeper cost</h2>
 *
 * <p>The selector's: a term one round trip to enter with no one ahead, one data read that watches the node ahead while
 * waiting; the end of a term one delete; {@link Context#yield()} one delete and one new entry (one round trip);
 * {@link #stop()} one delete. {@link Context#isLeader()} and {@link LeaderContext#epoch()} make no call.
 *
 * <h2>Failure behaviour</h2>
 *
 * <p>As above: IN_DOUBT (suspended connection) and LOST (session ended, node deleted by a stranger) end the term at
 * once, with {@code onGranted} interrupted if it still runs. An exception from {@code onGranted} other than an
 * interrupt is logged and the candidate yields ({@code ZkLeaderInitiatorTest.onGranted_thatThrows_yieldsToTheOther});
 * one from {@code onRevoked} or from publishing an event is logged. A
 * {@link #stop()} waits for {@code onRevoked} to return, so a candidate that ignores interrupts in {@code onGranted}
 * holds the stop up.
 *
 * <h2>Usage</h2>
 *
 * <pre>{@code
 * ZkLeaderInitiator initiator = new ZkLeaderInitiator(client, candidate);
 * initiator.start();   // or let the application context start it (auto-startup, phase Integer.MAX_VALUE - 1000)
 * ...
 * initiator.stop();    // onRevoked returns before the next candidate can be granted
 * }</pre>
 *
 * @since 0.1.0
 */
public final class ZkLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {
    /**
     * The root under which a role's election lives when none is given: {@value}, Spring Integration's ZooKeeper
     * initiator's ({@code ZkLeaderInitiatorTest.defaultRoot_isSpringsZooKeeperInitiators}).
     */
    public static final String DEFAULT_ROOT = "/spring-integration/leader";

    private final Candidate candidate;
    private final String path;
    private final LeaderContext context = new LeaderContext();
    private final CandidateTerms terms;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private volatile ApplicationEventPublisher applicationEvents;
    private volatile boolean autoStartup = true;
    private volatile int phase = Integer.MAX_VALUE - 1000;

    /**
     * Creates an initiator for {@code candidate} under {@link #DEFAULT_ROOT}. No ZooKeeper call.
     *
     * @param client the client; it must be started before {@link #start()}
     * @param candidate the candidate; its role names the election, its id is the participant id
     * @throws NullPointerException if an argument, or the candidate's role or id, is null
     * @throws IllegalArgumentException if the role is empty or makes no valid ZooKeeper path
     */
    public ZkLeaderInitiator(CuratorFramework client, Candidate candidate) {
        this(client, candidate, DEFAULT_ROOT);
    }

    /**
     * Creates an initiator for {@code candidate} whose election is {@code <root>/<role>}. No ZooKeeper call. Bad input
     * fails here, before any node is made ({@code ZkLeaderInitiatorTest.constructor_withBadInput_failsNamingTheValue}).
     *
     * @param client the client; it must be started before {@link #start()}
     * @param candidate the candidate; its role names the election, its id is the participant id
     * @param root the absolute path under which each role's election lives, without a trailing slash (a single one is
     *     dropped, as Spring drops it)
     * @throws NullPointerException if an argument, or the candidate's role or id, is null
     * @throws IllegalArgumentException if the role is empty or {@code <root>/<role>} is no valid ZooKeeper path
     */
    public ZkLeaderInitiator(CuratorFramework client, Candidate candidate, String root) {
        Objects.requireNonNull(client, "client");
        this.candidate = Objects.requireNonNull(candidate, "candidate");
        Objects.requireNonNull(root, "root");
        String role = Objects.requireNonNull(candidate.getRole(), "candidate.getRole()");
        Objects.requireNonNull(candidate.getId(), "candidate.getId()");
        if (role.isEmpty()) {
            throw new IllegalArgumentException(
                    "candidate role '' is empty: it names the election under '" + root + "'");
        }
        String base = root.endsWith("/") && root.length() > 1 ? root.substring(0, root.length() - 1) : root;
        this.path = base + "/" + role;
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("leader path '" + path + "' of root '" + root + "' and role '" + role
                    + "' is invalid: " + e.getMessage());
        }
        this.terms = new CandidateTerms(client, candidate, path, context, this);
    }

    /**
     * Enters the election: a new selector is started, in the background. Does nothing if running.
     *
     * @throws IllegalStateException if the client is not started or is closed
     */
    @Override
    public void start() {
        lifecycle.lock();
        try {
            if (!terms.hasPublisher() && applicationEvents != null) {
                terms.setPublisher(new DefaultLeaderEventPublisher(applicationEvents));
            }
            terms.start();
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Leaves the election. If the candidate leads, {@code onGranted} is interrupted if it still runs, then
     * {@code onRevoked} runs and returns, then our node's delete is sent. Waits for that (unless called on the
     * initiator's own thread, from a callback, where it is done right after the callback). Does nothing if not running.
     */
    @Override
    public void stop() {
        terms.stop();
    }

    @Override
    public boolean isRunning() {
        return terms.isRunning();
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /**
     * Sets whether the application context starts this initiator; true by default, as Spring's initiators.
     *
     * @param autoStartup whether to start with the context
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /**
     * Sets the lifecycle phase; {@code Integer.MAX_VALUE - 1000} by default, as Spring's initiators.
     *
     * @param phase the phase
     */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    /**
     * Sets the publisher of leadership events; without one, a {@link DefaultLeaderEventPublisher} over the
     * application's event publisher is made at {@link #start()}, as Spring's {@code LockRegistryLeaderInitiator} does.
     *
     * @param publisher the publisher
     * @throws NullPointerException if {@code publisher} is null
     */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        terms.setPublisher(Objects.requireNonNull(publisher, "publisher"));
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        this.applicationEvents = applicationEventPublisher;
    }

    /**
     * Returns the context handed to the candidate, the same object for the initiator's life.
     *
     * @return the context
     */
    public LeaderContext getContext() {
        return context;
    }

    /**
     * Returns the path of the election, {@code <root>/<role>}.
     *
     * @return the election path
     */
    public String getPath() {
        return path;
    }

    @Override
    public String toString() {
        return "ZkLeaderInitiator[" + path + ", id '" + candidate.getId() + "', "
                + (isRunning() ? "running" : "stopped") + "]";
    }

    /**
     * The {@link Context} of a {@link ZkLeaderInitiator}'s candidate, with the term's epoch. Safe for use by multiple
     * threads; no method makes a ZooKeeper call.
     *
     * @since 0.1.0
     */
    public final class LeaderContext implements Context {
        private LeaderContext() {}

        /**
         * Tells whether the candidate leads now: it was told {@code onGranted}, not yet {@code onRevoked}, and its
         * selector's hold is HELD (false from the moment the connection is suspended). No ZooKeeper call.
         *
         * @return whether the candidate leads
         */
        @Override
        public boolean isLeader() {
            return terms.isLeader();
        }

        /**
         * Gives up leadership so another candidate may take it: if the candidate leads, {@code onGranted} is
         * interrupted if it still runs, {@code onRevoked} runs and returns, then our node's delete is sent and the
         * candidate enters again with a new node, after the old one's delete, behind those already waiting
         * ({@code ZkLeaderInitiatorTest.yield_ofTheLeader_revokesBeforeTheNextIsGranted}). Returns at once; nothing if
         * the candidate does not lead ({@code ZkLeaderInitiatorTest.yield_ofACandidateThatDoesNotLead_doesNothing}).
         */
        @Override
        public void yield() {
            terms.yieldLeadership();
        }

        @Override
        public String getRole() {
            return candidate.getRole();
        }

        /**
         * Returns the epoch of the current term: the fencing token of the selector's hold, larger for every later term
         * of the role in any process ({@code ZkLeaderInitiatorTest.yield_ofTheLeader_revokesBeforeTheNextIsGranted}).
         * Fence what the leader writes with it. No ZooKeeper call.
         *
         * @return the epoch
         * @throws IllegalStateException if the candidate does not lead now
         */
        public long epoch() {
            return terms.epoch();
        }

        @Override
        public String toString() {
            return "LeaderContext[" + path + ", id '" + candidate.getId() + "', leader " + isLeader() + "]";
        }
    }
}
