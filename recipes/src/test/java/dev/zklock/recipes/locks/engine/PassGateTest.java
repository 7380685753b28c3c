package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.zklock.recipes.locks.LockDriver;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The outcome tables of an exclusive cohort's gate, one thread at a time (a waiter is a value: its thread is never
 * started, so nothing is unparked), and two tests with a started thread: the wake ahead of a turn, and the spin. {@code CohortModelTest} checks the gate's interleavings with Lincheck, and {@code
 * CohortLockTest} and {@code AdmissionTest} run it for real.
 */
final class PassGateTest {
    private final CuratorFramework client = CuratorFrameworkFactory.newClient("127.0.0.1:1", new RetryOneTime(1));
    private final LockPath path = new LockPath(client, "/locks/a", "lock-", LockDriver.exclusive(), null);
    private final LockNode node = new LockNode(path, "_c_a-lock-0000000001", 100, 7);
    private final PassGate gate = new PassGate();

    @AfterEach
    void close() {
        client.close();
    }

    /** Outcome table: the first to come has the gate at once, as it is (WAITING: on to the machine); the next queues. */
    @Test
    void enter_free_hasItAtOnce_andTheNextQueues() {
        LocalWaiter a = waiter("a");
        LocalWaiter b = waiter("b");

        assertThat(gate.enter(a)).isTrue();
        assertThat(gate.enter(b)).isFalse();

        assertThat(a.status()).isEqualTo(LocalWaiter.Status.WAITING);
        assertThat(b.status()).isEqualTo(LocalWaiter.Status.QUEUED);
        assertThat(gate.queuedCount()).isEqualTo(1);
    }

    /**
     * Outcome table: a release that passes its hold gives the first queued thread the node with the pass given, in
     * FIFO order; the gate stays taken. Forbidden: a hold passed to a thread that left.
     */
    @Test
    void passHold_toTheFirstStillQueued_skippingOneThatLeft() {
        LocalWaiter a = waiter("a");
        LocalWaiter b = waiter("b");
        LocalWaiter c = waiter("c");
        gate.enter(a);
        gate.enter(b);
        gate.enter(c);

        assertThat(gate.leave(b)).isTrue();
        assertThat(gate.passHold(node, 4)).isTrue();

        assertThat(b.status()).isEqualTo(LocalWaiter.Status.LEFT);
        assertThat(c.status()).isEqualTo(LocalWaiter.Status.GRANTED);
        assertThat(c.hold().node()).isSameAs(node);
        assertThat(c.hold().pass()).isEqualTo(4);
        assertThat(gate.passHold(node, 5)).isFalse(); // nobody left: the releaser keeps its hold, and the gate
        assertThat(gate.inUse()).isTrue();
    }

    /**
     * Outcome table: a release with no hold to pass lets the first queued thread through (ENTERED: it asks the
     * machine); with nobody queued it frees the gate, and the next to come has it at once.
     */
    @Test
    void release_letsTheFirstThrough_thenFreesTheGate() {
        LocalWaiter a = waiter("a");
        LocalWaiter b = waiter("b");
        gate.enter(a);
        gate.enter(b);

        gate.release();
        assertThat(b.status()).isEqualTo(LocalWaiter.Status.ENTERED);
        gate.release();

        assertThat(gate.inUse()).isFalse();
        assertThat(gate.enter(waiter("c"))).isTrue();
    }

    /**
     * A release whose hold came by a pass, finding nobody queued, waits for a thread to queue and passes to it: the
     * other thread of two taking turns, on its way back. The gate never stops waiting here, so only a queued thread can
     * end it; the thread queues after this one is released to pass (a latch), most often after the first look at the
     * queue, which without the wait would keep the hold.
     */
    @Test
    @Timeout(10)
    void passHold_afterAPass_findingNobody_waitsForAThreadToQueue_andPassesToIt() throws InterruptedException {
        PassGate waiting = new PassGate(0, Integer.MAX_VALUE);
        waiting.enter(waiter("a"));
        LocalWaiter b = waiter("b");
        waiting.enter(b);
        assertThat(waiting.passHold(node, 1)).isTrue(); // b's hold comes by a pass
        CountDownLatch passing = new CountDownLatch(1);
        LocalWaiter[] c = new LocalWaiter[1];
        Thread thread = new Thread(() -> {
            try {
                passing.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            waiting.enter(c[0]);
        });
        c[0] = new LocalWaiter(thread);
        thread.start();

        passing.countDown();
        assertThat(waiting.passHold(node, 2)).isTrue();

        assertThat(c[0].status()).isEqualTo(LocalWaiter.Status.GRANTED);
        assertThat(c[0].hold().pass()).isEqualTo(2);
        thread.join();
    }

    /**
     * A release whose hold did not come by a pass (a thread alone, or one the gate let through with no hold) does not
     * wait for a thread to queue: with a wait nobody ends, the test would time out. Forbidden: a lone thread stopped at
     * each release.
     */
    @Test
    @Timeout(10)
    void passHold_byAThreadWhoseHoldDidNotComeByAPass_waitsForNobody() {
        PassGate waiting = new PassGate(0, Integer.MAX_VALUE);
        assertThat(waiting.enter(waiter("alone"))).isTrue();
        assertThat(waiting.passHold(node, 1)).isFalse();

        LocalWaiter b = waiter("b");
        waiting.enter(b);
        assertThat(waiting.passHold(node, 2)).isTrue(); // b's hold came by a pass ...
        LocalWaiter c = waiter("c");
        waiting.enter(c);
        waiting.release(); // ... c's does not: let through with no hold, it asks the machine
        assertThat(c.status()).isEqualTo(LocalWaiter.Status.ENTERED);
        assertThat(waiting.passHold(node, 3)).isFalse();
    }

    /** Outcome table: a thread passed to as it gives up cannot leave: it was granted (or let through) first. */
    @Test
    void leave_afterThePass_isRefused() {
        LocalWaiter a = waiter("a");
        LocalWaiter b = waiter("b");
        gate.enter(a);
        gate.enter(b);
        gate.passHold(node, 1);

        assertThat(gate.leave(b)).isFalse();
        assertThat(b.status()).isEqualTo(LocalWaiter.Status.GRANTED);
    }

    /**
     * A pass leaves the thread queued after its taker to be woken ahead of its turn by the next thread that parks, so
     * that it spins when its pass comes, whether the taker took it spinning (one that never said it parks) or parked:
     * here the thread after it said it parks and does, and nothing but that wake unparks it (it stays QUEUED).
     */
    @ParameterizedTest(name = "taker parked: {0}")
    @ValueSource(booleans = {false, true})
    void passHold_theNextThreadToPark_wakesTheThreadQueuedAfterTheTaker_aheadOfItsTurn(boolean takerParked)
            throws InterruptedException {
        CountDownLatch parking = new CountDownLatch(1);
        CountDownLatch woken = new CountDownLatch(1);
        LocalWaiter[] c = new LocalWaiter[1];
        Thread thread = new Thread(() -> {
            c[0].parking(true);
            parking.countDown();
            LockSupport.park(this);
            woken.countDown();
        });
        c[0] = new LocalWaiter(thread);
        gate.enter(waiter("a"));
        LocalWaiter b = waiter("b");
        gate.enter(b);
        b.parking(takerParked); // its thread is never started: the pass's unpark of it does nothing
        gate.enter(c[0]);
        thread.start();
        assertThat(parking.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(gate.passHold(node, 1)).isTrue();
        gate.beforePark(waiter("d")); // another thread of the cohort, about to park

        assertThat(woken.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(b.status()).isEqualTo(LocalWaiter.Status.GRANTED);
        assertThat(c[0].status()).isEqualTo(LocalWaiter.Status.QUEUED);
        thread.join();
    }

    /**
     * The first queued thread's spin ends when the gate is passed to it; one not first does not spin. With a spin that
     * would outlast the test, only the pass can end it.
     */
    @Test
    void spinIfNext_endsAtThePass_andOnlyTheFirstSpins() throws InterruptedException {
        PassGate spinning = new PassGate(Integer.MAX_VALUE, 0);
        CountDownLatch spun = new CountDownLatch(1);
        LocalWaiter[] b = new LocalWaiter[1];
        Thread thread = new Thread(() -> {
            spinning.spinIfNext(b[0]);
            spun.countDown();
        });
        b[0] = new LocalWaiter(thread);
        spinning.enter(waiter("a"));
        spinning.enter(b[0]);
        LocalWaiter c = waiter("c");
        spinning.enter(c);
        spinning.spinIfNext(c); // not first: back at once

        thread.start();
        assertThat(spun.await(200, TimeUnit.MILLISECONDS)).isFalse(); // spinning: nothing passed yet
        assertThat(spinning.passHold(node, 1)).isTrue();

        assertThat(spun.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(b[0].status()).isEqualTo(LocalWaiter.Status.GRANTED);
        thread.join();
    }

    private static LocalWaiter waiter(String name) {
        return new LocalWaiter(new Thread(name));
    }
}
