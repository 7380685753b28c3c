package dev.zklock.recipes.locks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Op;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queues of several exclusive lock paths, entered and left together with one ZooKeeper transaction each way.
 * Safe for use by multiple threads; it keeps no per-acquisition state (that lives in {@link Acquisition}).
 */
final class MultiQueue {
    private static final Logger logger = LoggerFactory.getLogger(MultiQueue.class);
    private static final String LOCK_NAME = "lock-";

    private final List<LockQueue> queues;

    /** @param paths distinct, valid lock paths in canonical (sorted) order */
    MultiQueue(CuratorFramework client, List<String> paths) {
        List<LockQueue> list = new ArrayList<>();
        for (String path : paths) {
            list.add(new LockQueue(client, path, LOCK_NAME, LockDriver.exclusive(), null));
        }
        this.queues = List.copyOf(list);
    }

    List<LockQueue> queues() {
        return queues;
    }

    /** Tracks the connection state of the nodes of one granted multi-lock. */
    List<Hold> track(List<LockNode> nodes, List<LockStateListener> listeners) {
        List<Hold> holds = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            holds.add(queues.get(i).track(nodes.get(i), listeners));
        }
        return List.copyOf(holds);
    }

    /** Stops tracking the holds and deletes their nodes in one transaction; see {@link #deleteAll(List)}. */
    void release(List<Hold> holds) {
        List<LockNode> nodes = new ArrayList<>();
        for (int i = 0; i < holds.size(); i++) {
            queues.get(i).untrack(holds.get(i));
            nodes.add(holds.get(i).node());
        }
        List<ReleasesInFlight.Release> releases = nodes.stream()
                .map(node -> ReleasesInFlight.begin(queues.get(0).fixed(node.path()), node.sessionId()))
                .toList();
        try {
            deleteAll(nodes);
        } finally {
            for (ReleasesInFlight.Release release : releases) {
                FrontNodes.released(release.path());
                ReleasesInFlight.end(release);
            }
        }
    }

    /** Takes a place in every queue at once and waits until it holds all; empty if the deadline passed first. */
    Optional<List<LockNode>> acquire(Deadline deadline) throws InterruptedException {
        for (LockQueue queue : queues) {
            queue.checkCanAcquire();
        }
        return new BlockingRunner(queues, deadline, null).run();
    }

    /**
     * Deletes all of {@code nodes} in one transaction, waiting at most one request timeout, never giving in to an
     * interrupt. If some node is already gone (its session ended), the rest are deleted one by one; if the connection
     * is down, Curator's guaranteed delete takes over for each. Returns whether all are known gone.
     */
    boolean deleteAll(List<LockNode> nodes) {
        LockQueue first = queues.get(0);
        if (first.client().getZookeeperClient().isConnected()) {
            ZkSession session = first.currentSessionQuietly();
            if (session != null) {
                List<Op> deletes = new ArrayList<>();
                for (LockNode node : nodes) {
                    deletes.add(Op.delete(first.fixed(node.path()), -1));
                }
                MultiReply reply = Uninterruptibles.await(session.multi(deletes), first.requestTimeoutNanos());
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
            first.deleteInBackground(node.path());
        }
        return false;
    }

    private boolean deleteEach(List<LockNode> nodes) {
        boolean allGone = true;
        Failures failures = new Failures();
        for (LockNode node : nodes) {
            try {
                allGone &= queueOf(node).delete(node.path());
            } catch (ZkLockException e) {
                failures.add(e);
            }
        }
        failures.throwIfAny();
        return allGone;
    }

    private LockQueue queueOf(LockNode node) {
        for (LockQueue queue : queues) {
            if (node.path().startsWith(queue.path() + "/")) {
                return queue;
            }
        }
        throw new AssertionError("node " + node + " is in none of the queues " + queues);
    }
}
