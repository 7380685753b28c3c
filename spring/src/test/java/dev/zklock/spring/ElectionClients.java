package dev.zklock.spring;

import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.TcpProxy;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;

/** What the leader-election tests share: an application's client, through a proxy of its own or straight. */
final class ElectionClients {
    private ElectionClients() {}

    /** A proxy to the extension's server for one application, or null if it connects straight. */
    static TcpProxy proxy(ZooKeeperExtension zk, boolean throughProxy) throws IOException {
        return throughProxy ? zk.newProxy() : null;
    }

    /** A started client with a session of {@code sessionMs}, through {@code proxy} unless it is null. */
    static CuratorFramework client(ZooKeeperExtension zk, int sessionMs, TcpProxy proxy) {
        return zk.newClient(builder -> {
            builder.sessionTimeoutMs(sessionMs);
            if (proxy != null) {
                builder.connectString(proxy.connectString());
            }
        });
    }

    /** Waits until {@code leader} names someone other than {@code previous} (null: anyone) and returns that one. */
    static String awaitLeaderOtherThan(Supplier<String> leader, String previous) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            String now = leader.get();
            return now != null && !now.equals(previous);
        });
        return leader.get();
    }
}
