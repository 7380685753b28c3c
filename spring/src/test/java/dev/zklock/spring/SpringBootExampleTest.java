package dev.zklock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The README's Spring example, run: {@link NightlyReport} as the README shows it, in two instances of an application
 * that Boot configures from {@code zklock.connect-string} alone; while one holds the lock, the other's run builds
 * nothing.
 */
@Timeout(60)
final class SpringBootExampleTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** The README's example; {@code build()} counts. */
    @Component
    static class NightlyReport {
        @Autowired
        LockRegistry<?> locks;

        @Scheduled(cron = "0 0 2 * * *")
        void run() throws InterruptedException {
            try {
                locks.executeLocked("nightly-report", Duration.ofSeconds(1), this::build);
            } catch (TimeoutException anotherInstanceIsBuildingIt) {
            }
        }

        final AtomicInteger built = new AtomicInteger();

        void build() {
            built.incrementAndGet();
        }
    }

    @Test
    void nightlyReport_inTwoInstances_isBuiltByTheOneThatTakesTheLock() {
        ApplicationContextRunner instance = new ApplicationContextRunner()
                .withConfiguration(ClientMode.ZKLOCK)
                .withPropertyValues(
                        "zklock.connect-string=" + zk.connectString(), "zklock.registry.root=" + zk.path("locks"))
                .withUserConfiguration(NightlyReport.class);
        instance.run(first -> {
            NightlyReport firsts = first.getBean(NightlyReport.class);
            firsts.run();
            assertThat(firsts.built).hasValue(1);

            Lock held = first.getBean(LockRegistry.class).obtain("nightly-report");
            held.lock();
            try {
                instance.run(second -> {
                    NightlyReport seconds = second.getBean(NightlyReport.class);
                    seconds.run();
                    assertThat(seconds.built).hasValue(0);
                });
            } finally {
                held.unlock();
            }
        });
    }
}
