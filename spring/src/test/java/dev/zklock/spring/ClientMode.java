package dev.zklock.spring;

import dev.zklock.recipes.test.ZooKeeperExtension;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The two ways an application gives zklock's auto-configuration a client: its own {@code CuratorFramework} bean, or
 * {@code zklock.connect-string}, from which zklock starts one. Each makes a runner with every zklock auto-configuration
 * (sorted by their declared order, as Boot sorts them) and its lock root under the test's base path.
 */
enum ClientMode {
    /** The application's client as a bean the context does not close (the extension closes it). */
    APPLICATION_CLIENT {
        @Override
        ApplicationContextRunner runner(ZooKeeperExtension zk) {
            CuratorFramework client = zk.newClient();
            return withRoot(zk)
                    .withBean(CuratorFramework.class, () -> client, definition -> definition.setDestroyMethodName(""));
        }
    },
    /** zklock's own client from {@code zklock.connect-string}, closed with the context. */
    CONNECT_STRING {
        @Override
        ApplicationContextRunner runner(ZooKeeperExtension zk) {
            return withRoot(zk).withPropertyValues("zklock.connect-string=" + zk.connectString());
        }
    };

    /** Every auto-configuration zklock-spring lists in its AutoConfiguration.imports. */
    static final AutoConfigurations ZKLOCK = AutoConfigurations.of(
            ZkLockAutoConfiguration.class,
            ZkLockHealthContributorAutoConfiguration.class,
            ZkLockMetricsAutoConfiguration.class,
            ZkLockObservationAutoConfiguration.class,
            ZkLeaderAutoConfiguration.class);

    /** Returns a runner with zklock's auto-configurations and a client given this way. */
    abstract ApplicationContextRunner runner(ZooKeeperExtension zk);

    private static ApplicationContextRunner withRoot(ZooKeeperExtension zk) {
        return new ApplicationContextRunner()
                .withConfiguration(ZKLOCK)
                .withPropertyValues("zklock.registry.root=" + zk.path("locks"));
    }
}
