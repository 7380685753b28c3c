package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The context switches a bench contender counts on its own thread (Linux's /proc/thread-self/status). */
@EnabledOnOs(OS.LINUX)
final class ThreadSwitchesTest {

    @Test
    void ofCurrentThread_aroundAWaitForAnotherThread_countsTheSwitchOfTheWait() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        CompletableFuture<long[]> counted = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                long before = ThreadSwitches.ofCurrentThread().orElseThrow();
                go.await(); // blocks until the test sees it waiting: at least one switch off its processor
                long after = ThreadSwitches.ofCurrentThread().orElseThrow();
                counted.complete(new long[] {before, after});
            } catch (Throwable e) {
                counted.completeExceptionally(e);
            }
        });
        waiter.start();
        await().until(() -> waiter.getState() == Thread.State.WAITING);
        go.countDown();

        long[] switches = counted.get();
        assertThat(switches[1]).isGreaterThan(switches[0]);
    }

    @Test
    void ofCurrentThread_onLinux_isToldAndNeverNegative() {
        OptionalLong switches = ThreadSwitches.ofCurrentThread();

        assertThat(switches).isPresent();
        assertThat(switches.getAsLong()).isNotNegative();
    }
}
