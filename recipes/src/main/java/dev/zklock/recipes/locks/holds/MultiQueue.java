package dev.zklock.recipes.locks.holds;

import dev.zklock.recipes.locks.FencingToken;
import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.ZkLockException;
import dev.zklock.recipes.locks.ZkMultiLock;
import dev.zklock.recipes.locks.engine.Acquisition;
import dev.zklock.recipes.locks.engine.Admission;
import dev.zklock.recipes.locks.engine.BlockingRunner;
import dev.zklock.recipes.locks.engine.ClientContext;
import dev.zklock.recipes.locks.engine.Deadline;
import dev.zklock.recipes.locks.engine.Failures;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import dev.zklock.recipes.locks.engine.NodeDeletes;
import dev.zklock.recipes.locks.engine.ReleasesInFlight;
import dev.zklock.recipes.locks.engine.Reply;
import dev.zklock.recipes.locks.engine.Uninterruptibles;
import dev.zklock.recipes.locks.engine.ZooKeeperHandle;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queues of several exclusive lock paths, entered and left together with one ZooKeeper transaction each way: the
 * {@link ZkMultiLock} over paths. Internal to zklock, not API; it may change or go without notice.
 *
 * <p>Safe for use by multiple threads; it keeps no per-acquisition state (that lives in {@link Acquisition}). Cost: an
 * uncontended acquire is one round trip and two requests for any number of paths (one transaction creating every
 * node, one read-only transaction listing every path, pipelined behind it), then one data read per path, not waited
 * for, that sets the watch vouching for its node; waiting costs, per blocked path, what a single lock's waiter pays. A
 * release is one transaction (one delete per node instead when a node is already gone; Curator's guaranteed delete per
 * node while the connection is down). {@link #paths()} and a hold's tokens and state make no ZooKeeper call.
 */
public final class MultiQueue implements MultiLockMembers {
    private static final Logger logger = LoggerFactory.getLogger(MultiQueue.class);
    private static final String LOCK_NAME = "lock-";

    private final List<LockPath> queues;
    private final String name;

    /**
     * Makes the queues of {@code paths}. No ZooKeeper call.
     *
     * @param client the client whose sessions take the nodes
     * @param paths distinct, valid lock paths in canonical (sorted) order
     * @param name what metrics and messages call the multi-lock
     * @param listeners the multi-lock's state listeners, told of every change of the state of a hold of a path
     */
    public MultiQueue(CuratorFramework client, List<String> paths, String name, List<LockStateListener> listeners) {
        List<LockPath> list = new ArrayList<>();
        for (String path : paths) {
            list.add(new LockPath(client, path, LOCK_NAME, LockDriver.exclusive(), null, listeners));
        }
        this.queues = List.copyOf(list);
        this.name = name;
    }

    @Override
    public List<String> paths() {
        return queues.stream().map(LockPath::path).toList();
    }

    /**
     * Takes a place in every queue at once and waits until it holds all, admitted as one ({@link Admission}); empty if
     * the deadline passed first.
     */
    @Override
    public Optional<Taken> acquire(Deadline deadline) throws InterruptedException {
        for (LockPath queue : queues) {
            queue.checkCanAcquire();
        }
        long start = System.nanoTime();
        Optional<List<LockNode>> nodes =
                Admission.admit(deadline, until -> new BlockingRunner(queues, until, null).run());
        queues.get(0).metrics().acquire(name, nodes.isPresent(), System.nanoTime() - start);
        return nodes.map(PathsTaken::new);
    }

    /** Stops tracking the holds and deletes their nodes in one transaction; see {@link #deleteAll(List)}. */
    private void release(List<LockNode> holds) {
        List<LockNode> nodes = new ArrayList<>();
        for (int i = 0; i < holds.size(); i++) {
            queues.get(i).untrack(holds.get(i));
            nodes.add(holds.get(i));
        }
        LockPath first = queues.get(0);
        first.hooks().beforeRelease(first.path(), nodes.get(0).name());
        ClientContext context = first.context();
        nodes.forEach(context.frontNodes()::releasing);
        List<ReleasesInFlight.Release> releases = nodes.stream()
                .map(node -> context.releases().begin(node.fixedPath(), node.sessionId()))
                .toList();
        try {
            deleteAll(nodes);
        } finally {
            nodes.forEach(context.frontNodes()::released);
            first.hooks().released(first.path(), nodes.get(0).name());
            releases.forEach(context.releases()::end);
        }
    }

    /**
     * Deletes all of {@code nodes} in one transaction, waiting at most one request timeout, never giving in to an
     * interrupt. If some node is already gone (its session ended), the rest are deleted one by one; if the connection
     * is down, Curator's guaranteed delete takes over for each. Returns whether all are known gone.
     */
    private boolean deleteAll(List<LockNode> nodes) {
        LockPath first = queues.get(0);
        if (first.client().getZookeeperClient().isConnected()) {
            ZooKeeperHandle session = ZooKeeperHandle.currentQuietly(first.client());
            if (session != null) {
                List<Op> deletes = new ArrayList<>();
                for (LockNode node : nodes) {
                    node.queue().deleting(node.name());
                    deletes.add(Op.delete(first.fixed(node.path()), -1));
                }
                Reply.Transaction reply = Uninterruptibles.await(session.multi(deletes), first.requestTimeoutNanos());
                if (reply != null && reply.isOk()) {
                    return true;
                }
                if (reply != null && !reply.isRetryable()) {
                    logger.debug(
                            "{}: deleting {} nodes together failed with {}; one by one",
                            first.path(),
                            nodes.size(),
                            reply.code());
                    return deleteEach(nodes);
                }
            }
        }
        for (LockNode node : nodes) {
            NodeDeletes.deleteInBackground(first, node.path());
        }
        return false;
    }

    private boolean deleteEach(List<LockNode> nodes) {
        boolean allGone = true;
        Failures failures = new Failures();
        long until =
                nodes.isEmpty() ? 0 : System.nanoTime() + queueOf(nodes.get(0)).requestTimeoutNanos();
        for (LockNode node : nodes) {
            try {
                allGone &= NodeDeletes.deleteNow(queueOf(node), node.path(), until);
            } catch (ZkLockException e) {
                failures.add(e);
            }
        }
        failures.throwIfAny();
        return allGone;
    }

    private LockPath queueOf(LockNode node) {
        for (LockPath queue : queues) {
            if (node.path().startsWith(queue.path() + "/")) {
                return queue;
            }
        }
        throw new AssertionError("node " + node + " is in none of the queues " + queues);
    }

    /** Our nodes in every queue, held as one. */
    private final class PathsTaken implements Taken {
        private final List<LockNode> holds;

        PathsTaken(List<LockNode> holds) {
            this.holds = holds;
        }

        @Override
        public LockState state() {
            LockState worst = LockState.HELD;
            for (LockNode hold : holds) {
                LockState state = hold.observedState();
                if (state.compareTo(worst) > 0) {
                    worst = state;
                }
            }
            return worst;
        }

        @Override
        public Map<String, Long> tokens() {
            Map<String, Long> tokens = new LinkedHashMap<>();
            for (int i = 0; i < holds.size(); i++) {
                tokens.put(queues.get(i).path(), FencingToken.of(holds.get(i).czxid(), 0));
            }
            return tokens;
        }

        @Override
        public void release() {
            queues.get(0).metrics().released(name, holds.get(0).heldNanos());
            MultiQueue.this.release(holds);
        }
    }
}
