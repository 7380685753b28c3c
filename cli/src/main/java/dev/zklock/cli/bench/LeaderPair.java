package dev.zklock.cli.bench;

import dev.zklock.recipes.leader.ZkLeaderLatch;
import dev.zklock.recipes.leader.ZkLeaderSelector;
import dev.zklock.spring.ZkLeaderInitiator;
import dev.zklock.spring.ZkSpringLockRegistry;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.utils.ZKPaths;
import org.springframework.context.Lifecycle;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.zookeeper.leader.LeaderInitiator;

/**
 * The four leadership pairs the bench measures, zklock's recipe against its counterpart, and how each makes a
 * {@link Contestant} on an election path whose participants' nodes are the path's children: for the initiators the
 * path is their root and role (Spring's {@code <namespace>/<role>}), for the registries' initiator the registry's root
 * and lock key ({@code <root>/<key>}). Every recipe is used with its defaults: the registries' initiator beats its
 * heart every 500 ms and busy-waits 50 ms, as Spring Integration sets it. Immutable.
 */
enum LeaderPair {
    /** {@code ZkLeaderLatch} against Curator's {@code LeaderLatch}: a term is given up by {@code close()}. */
    LATCH("latch", "ZkLeaderLatch vs LeaderLatch", "close()"),
    /** {@code ZkLeaderSelector} against Curator's {@code LeaderSelector}: a term ends as its task returns. */
    SELECTOR("selector", "ZkLeaderSelector vs LeaderSelector", "takeLeadership returns"),
    /** zklock's {@code ZkLeaderInitiator} against Spring Integration's ZooKeeper {@code LeaderInitiator}. */
    INITIATOR("initiator", "ZkLeaderInitiator vs LeaderInitiator (Spring, ZooKeeper)", "yield()"),
    /** Spring Integration's {@code LockRegistryLeaderInitiator} over zklock's registry and over Spring's. */
    REGISTRY_INITIATOR(
            "registry-initiator",
            "LockRegistryLeaderInitiator over ZkSpringLockRegistry vs over ZookeeperLockRegistry",
            "yield()");

    private final String key;
    private final String title;
    private final String handOverCall;

    LeaderPair(String key, String title, String handOverCall) {
        this.key = key;
        this.title = title;
        this.handOverCall = handOverCall;
    }

    /** Returns the pair's part of a scenario key, e.g. "latch". */
    String key() {
        return key;
    }

    /** Returns the group title of the pair's rows. */
    String title() {
        return title;
    }

    /** Returns what gives a term up in the hand-over row, e.g. "close()". */
    String handOverCall() {
        return handOverCall;
    }

    /** Returns the pair whose {@link #key()} is {@code key}. */
    static LeaderPair ofKey(String key) {
        for (LeaderPair pair : values()) {
            if (pair.key.equals(key)) {
                return pair;
            }
        }
        throw new IllegalArgumentException("unknown leadership pair '" + key + "'");
    }

    /**
     * Returns a contestant of {@code side}'s recipe on {@code client}, not started, electing on {@code path} as
     * participant {@code id}, telling {@code log} of its terms.
     */
    Contestant contestant(Side side, CuratorFramework client, String path, String id, TermLog log) {
        boolean zklock =
                switch (side) {
                    case ZKLOCK -> true;
                    case CURATOR -> false;
                    default -> throw new IllegalArgumentException("no leadership recipe on side " + side);
                };
        return switch (this) {
            case LATCH -> latch(zklock, client, path, id, log);
            case SELECTOR -> selector(zklock, client, path, id, log);
            case INITIATOR -> initiator(zklock, client, path, id, log);
            case REGISTRY_INITIATOR -> registryInitiator(zklock, client, path, id, log);
        };
    }

    /** A latch of either library, with a listener that tells the log; closed by a hand-over. */
    private static Contestant latch(boolean zklock, CuratorFramework client, String path, String id, TermLog log) {
        LeaderLatchListener listener = new LeaderLatchListener() {
            @Override
            public void isLeader() {
                log.granted(id);
            }

            @Override
            public void notLeader() {
                log.revoked(id);
            }
        };
        if (zklock) {
            ZkLeaderLatch latch = new ZkLeaderLatch(client, path, id);
            latch.addListener(listener);
            return RecipeContestant.closedByHandOver(latch::start, latch::close);
        }
        LeaderLatch latch = new LeaderLatch(client, path, id);
        latch.addListener(listener);
        return RecipeContestant.closedByHandOver(latch::start, latch::close);
    }

    /**
     * A selector of either library that requeues itself and leads until a hand-over lets its {@code takeLeadership}
     * return or its recipe interrupts it (Curator's listener adapter cancels leadership at SUSPENDED and LOST).
     */
    private static Contestant selector(boolean zklock, CuratorFramework client, String path, String id, TermLog log) {
        Semaphore handOvers = new Semaphore(0);
        LeaderSelectorListenerAdapter listener = new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework unused) throws InterruptedException {
                handOvers.drainPermits();
                log.granted(id);
                try {
                    handOvers.acquire();
                } finally {
                    log.revoked(id);
                }
            }
        };
        if (zklock) {
            ZkLeaderSelector selector = new ZkLeaderSelector(client, path, listener);
            selector.setId(id);
            selector.autoRequeue();
            return RecipeContestant.entersAgain(selector::start, handOvers::release, selector::close);
        }
        LeaderSelector selector = new LeaderSelector(client, path, listener);
        selector.setId(id);
        selector.autoRequeue();
        return RecipeContestant.entersAgain(selector::start, handOvers::release, selector::close);
    }

    /** zklock's {@code ZkLeaderInitiator} or Spring's ZooKeeper {@code LeaderInitiator}: root and role of the path. */
    private static Contestant initiator(boolean zklock, CuratorFramework client, String path, String id, TermLog log) {
        ZKPaths.PathAndNode rootAndRole = ZKPaths.getPathAndNode(path);
        LoggedCandidate candidate = new LoggedCandidate(id, rootAndRole.getNode(), log);
        Lifecycle initiator = zklock
                ? new ZkLeaderInitiator(client, candidate, rootAndRole.getPath())
                : new LeaderInitiator(client, candidate, rootAndRole.getPath());
        return RecipeContestant.entersAgain(initiator::start, candidate::yieldLeadership, initiator::stop);
    }

    /** Spring's {@code LockRegistryLeaderInitiator} over zklock's registry or Spring's: root and key from the path. */
    private static Contestant registryInitiator(
            boolean zklock, CuratorFramework client, String path, String id, TermLog log) {
        ZKPaths.PathAndNode rootAndKey = ZKPaths.getPathAndNode(path);
        LockRegistry<?> registry = zklock
                ? ZkSpringLockRegistry.builder(client)
                        .root(rootAndKey.getPath())
                        .build()
                : SpringRegistryLock.springRegistry(client, rootAndKey.getPath());
        LoggedCandidate candidate = new LoggedCandidate(id, rootAndKey.getNode(), log);
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        return RecipeContestant.entersAgain(initiator::start, candidate::yieldLeadership, () -> {
            initiator.stop();
            initiator.destroy();
        });
    }

    /** A Spring Integration candidate that also tells the log of its terms. */
    private static final class LoggedCandidate extends DefaultCandidate {
        private final TermLog log;

        LoggedCandidate(String id, String role, TermLog log) {
            super(id, role);
            this.log = log;
        }

        @Override
        public void onGranted(Context ctx) {
            super.onGranted(ctx);
            log.granted(getId());
        }

        @Override
        public void onRevoked(Context ctx) {
            super.onRevoked(ctx);
            log.revoked(getId());
        }
    }

    /** What a contestant does, as the recipe's own calls. */
    @FunctionalInterface
    private interface Call {
        void run() throws Exception;
    }

    /** A contestant made of its recipe's calls; closed once, by its hand-over or by {@link #close()}. */
    private static final class RecipeContestant implements Contestant {
        private final Call start;
        private final Call handOver;
        private final Call close;
        private final boolean entersAgain;
        private final AtomicBoolean closed = new AtomicBoolean();

        private RecipeContestant(Call start, Call handOver, Call close, boolean entersAgain) {
            this.start = start;
            this.handOver = handOver;
            this.close = close;
            this.entersAgain = entersAgain;
        }

        /** A contestant that gives up leadership by closing (a latch). */
        static RecipeContestant closedByHandOver(Call start, Call close) {
            return new RecipeContestant(start, null, close, false);
        }

        /** A contestant that gives up leadership by {@code handOver} and enters again. */
        static RecipeContestant entersAgain(Call start, Call handOver, Call close) {
            return new RecipeContestant(start, handOver, close, true);
        }

        @Override
        public void start() throws Exception {
            start.run();
        }

        @Override
        public void handOver() throws Exception {
            if (handOver == null) {
                close();
            } else {
                handOver.run();
            }
        }

        @Override
        public boolean entersAgain() {
            return entersAgain;
        }

        @Override
        public void close() {
            if (closed.getAndSet(true)) {
                return;
            }
            try {
                close.run();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("closing a contestant failed: " + e.getMessage(), e);
            }
        }
    }
}
