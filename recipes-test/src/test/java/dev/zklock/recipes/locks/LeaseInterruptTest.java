package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An interrupt that races a lease grant never leaks the lease (issue 18, item 5): each of {@value #ACQUIRES} blocking
 * acquires on a {@link ZkSemaphore} is interrupted at a seeded random moment, from before it starts to after it
 * returns, while a contender on another client takes and returns every lease in a loop (so that some acquires wait for
 * the mutex or for a lease, and some are granted at once). The moment is a number of {@link Thread#onSpinWait()} spins
 * after the acquire's thread starts it, up to twice an acquire's usual length; {@code -Dzklock.seed} replays a run.
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>the interrupt lands</th><th>acceptable</th><th>forbidden</th></tr>
 *   <tr><td>before the acquire starts</td><td>InterruptedException, nothing made</td>
 *       <td>a node made; the interrupt lost</td></tr>
 *   <tr><td>while it takes the mutex, creates its lease, or waits</td><td>InterruptedException; the mutex and lease
 *       nodes it made deleted</td><td>a node left</td></tr>
 *   <tr><td>as the lease is granted</td><td>the lease returned to the caller (held, and then returned by the test),
 *       or InterruptedException and the lease deleted</td><td>InterruptedException with the lease left standing until
 *       the session ends (a lease the caller never saw)</td></tr>
 *   <tr><td>after the acquire returned</td><td>the lease, the thread's interrupt flag set</td><td></td></tr>
 *   <tr><td>any</td><td></td><td>an acquire that neither returns a lease nor throws InterruptedException; a lease,
 *       a mutex node or a watch left after the loop</td></tr>
 * </table>
 */
@Timeout(180)
final class LeaseInterruptTest {
    private static final int ACQUIRES = 400;
    private static final long SEED = Long.getLong("zklock.seed", System.nanoTime());

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void acquire_interruptedAtARandomMoment_returnsTheLeaseOrThrowsAndLeavesNothing() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkSemaphore semaphore = new ZkSemaphore(client, zk.path("sem"), 2);
        ZkSemaphore contended = new ZkSemaphore(zk.newClient(), zk.path("sem"), 2);
        SplittableRandom random = new SplittableRandom(SEED);
        int leased = 0;
        int interrupted = 0;
        AtomicBoolean stop = new AtomicBoolean();
        try (LockActor acquirer = LockActor.start("acquirer");
                LockActor contender = LockActor.start("contender")) {
            CompletableFuture<Integer> contending = contender.submit(() -> contend(contended, stop));
            int maxSpins = 2 * spinsPerAcquire(acquirer, semaphore);
            for (int i = 0; i < ACQUIRES; i++) {
                Object outcome = acquireInterrupted(acquirer, semaphore, random.nextInt(maxSpins));
                if (outcome instanceof ZkLease lease) {
                    assertThat(lease.state()).isEqualTo(LockState.HELD);
                    lease.close();
                    leased++;
                } else {
                    assertThat(outcome).isInstanceOf(InterruptedException.class);
                    interrupted++;
                }
            }
            stop.set(true);
            assertThat(contending.get(30, TimeUnit.SECONDS)).isPositive();
        }
        System.out.printf(
                "%d acquires interrupted at random (seed %d): %d returned their lease, %d threw%n",
                ACQUIRES, SEED, leased, interrupted);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(semaphore.getParticipantNodes()).as("leases").isEmpty();
            assertThat(children(client, zk.path("sem/locks"))).as("mutex nodes").isEmpty();
        });
        assertThat(leased + interrupted).isEqualTo(ACQUIRES);
    }

    /**
     * Starts an acquire on {@code acquirer}, interrupts it after {@code spins} spins from its start, and returns what
     * it came to: the lease, or the InterruptedException. The acquirer's action ends only once the interrupt is sent,
     * and clears a flag it left, so that no interrupt reaches the next acquire.
     */
    private static Object acquireInterrupted(LockActor acquirer, ZkSemaphore semaphore, int spins) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch sent = new CountDownLatch(1);
        CompletableFuture<Object> outcome = acquirer.submit(() -> {
            started.countDown();
            Object result;
            try {
                result = semaphore.acquire(Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("timed out"));
            } catch (InterruptedException e) {
                result = e;
            }
            awaitUninterruptibly(sent);
            Thread.interrupted(); // an interrupt that came after the acquire had returned
            return result;
        });
        started.await();
        spin(spins);
        acquirer.interrupt();
        sent.countDown();
        return outcome.get(60, TimeUnit.SECONDS);
    }

    /** How many spins an uninterrupted acquire and return take, at the median of a few. */
    private static int spinsPerAcquire(LockActor acquirer, ZkSemaphore semaphore) throws Exception {
        long[] nanos = new long[21];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = acquirer.submit(() -> {
                        long start = System.nanoTime();
                        semaphore.acquire().close();
                        return System.nanoTime() - start;
                    })
                    .get(30, TimeUnit.SECONDS);
        }
        java.util.Arrays.sort(nanos);
        int calibration = 1_000_000;
        long start = System.nanoTime();
        spin(calibration);
        double nanosPerSpin = Math.max(1e-3, (System.nanoTime() - start) / (double) calibration);
        return (int) Math.max(1_000, Math.min(Integer.MAX_VALUE / 2, nanos[nanos.length / 2] / nanosPerSpin));
    }

    /** Takes and returns every lease in a loop until told to stop; returns how many times it took them. */
    private static int contend(ZkSemaphore semaphore, AtomicBoolean stop) throws Exception {
        int rounds = 0;
        while (!stop.get()) {
            Collection<Lease> all = semaphore.acquire(2);
            semaphore.returnAll(all);
            rounds++;
        }
        return rounds;
    }

    private static void spin(int spins) {
        for (int i = 0; i < spins; i++) {
            Thread.onSpinWait();
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException ignored) {
                // the interrupt this test sends; it is cleared once the latch opens
            }
        }
    }

    private static List<String> children(CuratorFramework client, String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }
}
