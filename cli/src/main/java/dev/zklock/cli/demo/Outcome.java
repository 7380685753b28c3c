package dev.zklock.cli.demo;

import java.util.List;
import java.util.Locale;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * What one scene of the demo came to, as its last line says: how often two holders overlapped (for a semaphore: more
 * holders than leases), how many acquires timed out, and how many lock nodes were left behind. All zero on a lock
 * that works.
 *
 * @param scene the scene's name, such as "reentrant lock"
 * @param overlaps times two holders held at once where the lock allows one (a semaphore: more than its leases)
 * @param timeouts acquires that ran out of time
 * @param nodesLeft lock nodes (and lease nodes) still under the scene's paths at its end
 */
record Outcome(String scene, int overlaps, int timeouts, int nodesLeft) {
    /**
     * Returns the nodes left under {@code parent}: none if the parent is gone (an empty container parent, reaped by the
     * server). One request.
     */
    static int nodesUnder(CuratorFramework observer, String parent) throws Exception {
        try {
            return observer.getChildren().forPath(parent).size();
        } catch (KeeperException.NoNodeException reaped) {
            return 0;
        }
    }

    /** Tells whether nothing went wrong. */
    boolean isClean() {
        return overlaps == 0 && timeouts == 0 && nodesLeft == 0;
    }

    /** Returns the outcome line the demo prints: "reentrant lock done: overlaps 0, timeouts 0, nodes left 0". */
    String line() {
        return String.format(
                Locale.ROOT, "%s done: overlaps %d, timeouts %d, nodes left %d", scene, overlaps, timeouts, nodesLeft);
    }

    /** Returns the sum of {@code outcomes}, named "demo". */
    static Outcome total(List<Outcome> outcomes) {
        return new Outcome(
                "demo",
                outcomes.stream().mapToInt(Outcome::overlaps).sum(),
                outcomes.stream().mapToInt(Outcome::timeouts).sum(),
                outcomes.stream().mapToInt(Outcome::nodesLeft).sum());
    }
}
