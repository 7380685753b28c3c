package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.leader.LeaderTermListener;
import dev.zklock.recipes.leader.TermEnd;
import dev.zklock.recipes.leader.ZkLeaderLatch;
import dev.zklock.recipes.leader.ZkLeaderSelector;
import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.locks.LockStateListener;
import java.io.IOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.CancelLeadershipException;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;

/**
 * The targets of the leadership workloads: a term is a hold. Leadership gained is the acquire, the worker's release is
 * the leader's yield (a latch's {@code yield()}, a selector's {@code takeLeadership} returning), the term's epoch is the
 * hold's token, and the hold's state is HELD while the participant leads in that term and IN_DOUBT from the moment it
 * does not (its {@code notLeader}, or its selector's thread interrupted): the term was <em>revoked</em>. zklock's latch
 * says why ({@code LeaderTermListener}: LOST is recorded LOST, a suspension IN_DOUBT); its selector says that a term
 * ended, not why, so a selector's revoked term is recorded IN_DOUBT whether the connection was suspended or the
 * session lost. Curator's participants follow the client's connection, as its locks do; a term's
 * token is the epoch a zklock participant would have had on its node ({@code FencingToken.of(czxid, 0)}, what the
 * observer tells), its node's creation zxid read with one request after the term begins.
 *
 * <p>The participant id is the worker's process name ({@code c2.t16}), so the observer's {@code LeaderChanged} names the
 * thread the history does. Each target belongs to one worker thread; the latch's and selector's own threads only hand
 * terms over and tell of revocations. Cost: the participant's own (a create per entry, a delete per yield), plus a stat
 * per Curator term.
 */
final class LeaderTargets {
    private static final Field SELECTOR_MUTEX = CuratorTargets.field(LeaderSelector.class, "mutex");

    private LeaderTargets() {}

    /** A {@link ZkLeaderLatch} named after its worker; a release yields. */
    static Target zklockLatch(CuratorFramework client, String key, String process) {
        ZkLeaderLatch latch = new ZkLeaderLatch(client, key, process);
        return new Target() {
            @Override
            public Optional<Held> acquire(Duration timeout) throws Exception {
                if (latch.getState() == LeaderLatch.State.LATENT) {
                    latch.start();
                }
                if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    return Optional.empty();
                }
                OptionalLong epoch = epochOf(latch::epoch);
                if (epoch.isEmpty()) {
                    return Optional.empty(); // revoked between the grant and the read: no term to work in
                }
                long ours = epoch.getAsLong();
                AtomicBoolean yielding = new AtomicBoolean(); // the notLeader of our own yield is no revocation
                return Optional.of(new Held(
                        epoch,
                        event -> !yielding.get(), // a revocation is heard for the term the worker is in, if any
                        () -> Optional.of(leads(latch.hasLeadership(), latch::epoch, ours)),
                        () -> {
                            yielding.set(true);
                            latch.yield();
                        }));
            }

            @Override
            public void close() {
                if (latch.getState() == LeaderLatch.State.STARTED) {
                    latch.close();
                }
            }

            @Override
            public void addStateListener(LockStateListener listener) {
                latch.addListener(new LeaderTermListener() {
                    @Override
                    public void granted(long epoch) {}

                    @Override
                    public void revoked(long epoch, TermEnd why) {
                        listener.stateChanged(
                                revokedAs(key, why == TermEnd.LOST ? LockState.LOST : LockState.IN_DOUBT));
                    }
                });
            }

            @Override
            public String toString() {
                return latch.toString();
            }
        };
    }

    /** A {@link ZkLeaderSelector} named after its worker, requeued after each term; a release ends the term. */
    static Target zklockSelector(CuratorFramework client, String key, String process) {
        Terms terms = new Terms(key, false);
        ZkLeaderSelector selector = new ZkLeaderSelector(client, key, terms);
        selector.setId(process);
        selector.autoRequeue();
        terms.epoch = () -> epochOf(selector::epoch).orElse(-1);
        terms.leading = ours -> leads(selector.hasLeadership(), selector::epoch, ours);
        return terms.target(selector::start, selector::close);
    }

    /**
     * A Curator {@link LeaderLatch} named after its worker; Curator's latch cannot yield, so a release closes it and
     * the next acquire starts a new one.
     */
    static Target curatorLatch(CuratorFramework client, String key, String process) {
        return new Target() {
            private LeaderLatch latch; // confined to the worker's thread

            @Override
            public Optional<Held> acquire(Duration timeout) throws Exception {
                if (latch == null) {
                    latch = new LeaderLatch(client, key, process);
                    latch.start();
                }
                if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                    return Optional.empty();
                }
                LeaderLatch ours = latch;
                return Optional.of(new Held(
                        epochOfNode(CuratorTargets.creationZxid(client, ours::getOurPath)),
                        event -> false,
                        Optional::empty,
                        () -> {
                            latch = null;
                            ours.close();
                        }));
            }

            @Override
            public void addStateListener(LockStateListener listener) {}

            @Override
            public boolean followsConnection() {
                return true;
            }

            @Override
            public void close() throws IOException {
                if (latch != null) {
                    latch.close();
                }
            }
        };
    }

    /** A Curator {@link LeaderSelector} named after its worker, requeued after each term; a release ends the term. */
    static Target curatorSelector(CuratorFramework client, String key, String process) {
        Terms terms = new Terms(key, true);
        LeaderSelector selector = new LeaderSelector(client, key, terms);
        selector.setId(process);
        selector.autoRequeue();
        terms.epoch = () -> {
            try {
                InterProcessMutex mutex = (InterProcessMutex) SELECTOR_MUTEX.get(selector);
                return epochOfNode(CuratorTargets.creationZxid(client, () -> CuratorTargets.nodeOf(mutex)))
                        .orElse(-1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the term is being cut: its takeLeadership ends at once
                return -1;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read the mutex of " + selector, e);
            }
        };
        return terms.target(selector::start, selector::close);
    }

    /** Whether a participant still leads in the term of epoch {@code ours}: HELD if so, else IN_DOUBT (revoked). */
    static LockState leads(boolean leading, LongSupplier epochNow, long ours) {
        if (!leading) {
            return LockState.IN_DOUBT;
        }
        OptionalLong now = epochOf(epochNow);
        return now.isPresent() && now.getAsLong() == ours ? LockState.HELD : LockState.IN_DOUBT;
    }

    private static OptionalLong epochOf(LongSupplier epoch) {
        try {
            return OptionalLong.of(epoch.getAsLong());
        } catch (IllegalStateException notLeading) {
            return OptionalLong.empty();
        }
    }

    /** The epoch a zklock participant would have had on a node of this creation zxid, as the observer tells it. */
    private static OptionalLong epochOfNode(OptionalLong creationZxid) {
        return creationZxid.isPresent()
                ? OptionalLong.of(FencingToken.of(creationZxid.getAsLong(), 0))
                : OptionalLong.empty();
    }

    private static LockStateEvent revoked(String key) {
        return revokedAs(key, LockState.IN_DOUBT);
    }

    private static LockStateEvent revokedAs(String key, LockState state) {
        return new LockStateEvent(key, key, 0, 0, LockState.HELD, state);
    }

    /**
     * A selector's terms, handed from its leader thread to the worker: {@code takeLeadership} offers the term, waits
     * for the worker's release, and returns (the term ends); an interrupt of the leader thread (the selector's
     * step-down, or Curator's cancel at SUSPENDED and LOST) ends it at once and tells the worker. A term no worker takes
     * within the acquire timeout ends unused.
     */
    private static final class Terms implements LeaderSelectorListener {
        private final String key;
        private final boolean cancelOnTrouble; // Curator's: as LeaderSelectorListenerAdapter, cancel at SUSPENDED/LOST
        private final SynchronousQueue<Term> offered = new SynchronousQueue<>();
        private volatile LockStateListener listener = event -> {};
        private volatile LongSupplier epoch = () -> -1;
        /** Asks the participant, as a careful leader asks before it acts, whether it leads in the term of an epoch. */
        private volatile LongFunction<LockState> leading = ours -> LockState.HELD;

        Terms(String key, boolean cancelOnTrouble) {
            this.key = key;
            this.cancelOnTrouble = cancelOnTrouble;
        }

        @Override
        public void takeLeadership(CuratorFramework client) throws Exception {
            long termEpoch = epoch.getAsLong();
            Term term = new Term(termEpoch < 0 ? OptionalLong.empty() : OptionalLong.of(termEpoch));
            if (!offered.offer(term, Worker.ACQUIRE_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
                return;
            }
            try {
                term.released.await();
            } catch (InterruptedException e) {
                term.revoked = true;
                listener.stateChanged(revoked(key));
                throw e;
            }
        }

        @Override
        public void stateChanged(CuratorFramework client, ConnectionState newState) {
            if (cancelOnTrouble && (newState == ConnectionState.SUSPENDED || newState == ConnectionState.LOST)) {
                throw new CancelLeadershipException();
            }
        }

        Target target(Runnable start, Runnable close) {
            Terms terms = this;
            return new Target() {
                private boolean started; // confined to the worker's thread

                @Override
                public Optional<Held> acquire(Duration timeout) throws Exception {
                    if (!started) {
                        started = true;
                        start.run();
                    }
                    Term term = offered.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
                    if (term == null) {
                        return Optional.empty();
                    }
                    return Optional.of(new Held(
                            term.epoch,
                            event -> !cancelOnTrouble,
                            () -> cancelOnTrouble ? Optional.empty() : Optional.of(term.state(leading)),
                            term.released::countDown));
                }

                @Override
                public void close() {
                    if (started) {
                        close.run();
                    }
                }

                @Override
                public void addStateListener(LockStateListener heard) {
                    terms.listener = heard;
                }

                @Override
                public boolean followsConnection() {
                    return cancelOnTrouble;
                }
            };
        }
    }

    /** One selector term: its epoch, whether its leader thread was interrupted, and the worker's release. */
    private static final class Term {
        final OptionalLong epoch;
        final CountDownLatch released = new CountDownLatch(1);
        volatile boolean revoked;

        Term(OptionalLong epoch) {
            this.epoch = epoch;
        }

        /** IN_DOUBT once its leader thread was interrupted, or once the participant says it does not lead in it. */
        LockState state(LongFunction<LockState> leading) {
            if (revoked || epoch.isEmpty()) {
                return revoked ? LockState.IN_DOUBT : LockState.HELD;
            }
            return leading.apply(epoch.getAsLong());
        }
    }
}
