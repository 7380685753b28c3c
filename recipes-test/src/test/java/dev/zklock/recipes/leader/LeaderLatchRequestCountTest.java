package dev.zklock.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.ZooKeeperExtension;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a term of {@link ZkLeaderLatch} costs in ZooKeeper requests, counted at the server, beside Curator's
 * {@code LeaderLatch} in the same run: the figures {@code ZkLeaderLatch}'s javadoc states. The path is a persistent
 * node, so no reaped container parent is made again inside the count.
 */
@Timeout(120)
final class LeaderLatchRequestCountTest {
    private static final int TERMS = 100;

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void startAwaitClose_alone_costsFourRequestsAsCuratorsDoes() throws Exception {
        String path = zk.path("latch");
        CuratorFramework client = zk.newClient();
        client.create().creatingParentsIfNeeded().forPath(path);

        double zklock = perTerm(() -> {
            ZkLeaderLatch latch = new ZkLeaderLatch(client, path, "a");
            latch.start();
            latch.await();
            latch.close();
        });
        double curator = perTerm(() -> {
            LeaderLatch latch = new LeaderLatch(client, path, "a");
            latch.start();
            latch.await();
            latch.close();
        });

        System.out.printf(
                "one participant's term (start, await, close): zklock %.2f requests, Curator %.2f%n", zklock, curator);
        // a create and a listing (pipelined), a data read that watches our node, a delete; a ping at most, or the last
        // term's data read and delete still on their way (close does not wait for the delete's reply)
        assertThat(zklock).isBetween(3.95, 4.05);
    }

    private static double perTerm(Term term) throws Exception {
        term.run(); // warms up: the first term of each kind may make what later ones find
        ServerCounters before = zk.counters();
        for (int i = 0; i < TERMS; i++) {
            term.run();
        }
        return zk.counters().requestsSince(before) / (double) TERMS;
    }

    @FunctionalInterface
    private interface Term {
        void run() throws Exception;
    }
}
