package dev.zklock.recipes.locks;

import dev.zklock.recipes.test.ZooKeeperExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Chaos against one standalone server: session expiries, connection drops, and restarts of the server, which cut
 * every client off at once.
 */
final class ChaosOneServerIT extends ChaosSuite {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Override
    ZooKeeperExtension zk() {
        return zk;
    }
}
