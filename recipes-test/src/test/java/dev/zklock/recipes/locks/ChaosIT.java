package dev.zklock.recipes.locks;

import dev.zklock.recipes.test.ZooKeeperExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Chaos against a real 3-server ensemble: session expiries, connection drops, server restarts and leader kills. */
final class ChaosIT extends ChaosSuite {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.ensemble(3);

    @Override
    ZooKeeperExtension zk() {
        return zk;
    }
}
