package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(60)
final class ZkReentrantLockTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void acquire_whenFree_holdsWithOneNodeInTheQueue() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));

        lock.acquire();

        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.isAcquiredInThisProcess()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.participantNodes())
                .singleElement()
                .asString()
                .matches(zk.path("lock") + "/_c_[0-9a-f-]{36}-lock-\\d{10}");
        lock.release();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isAcquiredInThisProcess()).isFalse();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void acquire_byHolder_entersAgainWithoutANewNode() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));

        lock.acquire();
        assertThat(lock.acquire(1, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.acquire(Duration.ZERO)).isTrue();

        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.participantNodes()).hasSize(1);
        lock.release();
        lock.release();
        assertThat(lock.participantNodes()).hasSize(1);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.release();
        assertThat(lock.participantNodes()).isEmpty();
        assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    void acquire_whenHeldByAnotherThreadOfTheSameInstance_waitsForItsRelease() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        try (LockActor first = LockActor.start("first");
                LockActor second = LockActor.start("second")) {
            first.submit(() -> lock.acquire(5, TimeUnit.SECONDS)).join();

            CompletableFuture<Boolean> secondAcquired = second.submit(() -> lock.acquire(20, TimeUnit.SECONDS));
            await().until(() -> lock.participantNodes().size() == 2);
            assertThat(secondAcquired).isNotDone();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThat(lock.isAcquiredInThisProcess()).isTrue();

            first.run(lock::release).join();
            assertThat(secondAcquired.get()).isTrue();
            assertThat(second.submit(lock::getHoldCount).join()).isEqualTo(1);
            assertThat(first.submit(lock::isHeldByCurrentThread).join()).isFalse();
            second.run(lock::release).join();
        }
    }

    @Test
    void acquire_whenHeldElsewhere_timesOutAndLeavesNoNode() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock waiter = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();

        assertThat(waiter.acquire(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(waiter.acquire(Duration.ZERO)).isFalse();
        assertThat(waiter.acquire(-1, TimeUnit.SECONDS)).isFalse();

        assertThat(waiter.isHeldByCurrentThread()).isFalse();
        assertThat(holder.participantNodes()).hasSize(1);
        holder.release();
        assertThat(waiter.acquire(Duration.ZERO)).isTrue();
        waiter.release();
    }

    @Test
    void acquire_whenInterruptedWhileWaiting_throwsAndLeavesNoNode() throws Exception {
        ZkReentrantLock holder = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock waiter = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        holder.acquire();
        try (LockActor actor = LockActor.start("waiter")) {
            CompletableFuture<Void> waiting = actor.submit(() -> {
                waiter.acquire();
                return null;
            });
            await().until(() -> holder.participantNodes().size() == 2);

            actor.interrupt();

            assertThat(waiting)
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(InterruptedException.class);
            assertThat(actor.submit(() -> Thread.currentThread().isInterrupted())
                            .join())
                    .isFalse();
            assertThat(holder.participantNodes()).hasSize(1);
        }
        holder.release();
    }

    @Test
    void acquire_whenAlreadyInterrupted_throwsWithoutCreatingANode() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        Thread.currentThread().interrupt();

        assertThatThrownBy(lock::acquire)
                .isInstanceOf(InterruptedException.class)
                .hasMessageContaining(zk.path("lock"));

        assertThat(Thread.interrupted()).isFalse();
        assertThat(lock.participantNodes()).isEmpty();
    }

    /**
     * The token of a node taken from the pipelined listing comes from its create's reply, which ZooKeeper's event
     * thread hands over. Actors: a watcher that blocks that thread, the holder asking for its token. Acceptable: the
     * token once the thread is free; an exception naming the node after one request timeout while it is blocked.
     * Forbidden: waiting forever.
     */
    @Test
    void fencingToken_whileZooKeepersEventThreadIsBlocked_failsAfterOneRequestTimeoutNamingTheNode() throws Exception {
        CuratorFramework client = zk.newClient(builder -> builder.sessionTimeoutMs(4000));
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        client.checkExists()
                .usingWatcher((Watcher) event -> {
                    blocking.countDown();
                    awaitQuietly(unblock);
                })
                .forPath(zk.path("block"));
        CuratorFramework other = zk.newClient();
        other.create().creatingParentsIfNeeded().forPath(zk.path("lock")); // so the listing, too, needs no callback
        other.create().forPath(zk.path("block"));
        blocking.await();
        try {
            lock.acquire(); // the listing's reply comes straight to this thread; the create's waits for the event
            // thread

            assertThatThrownBy(lock::fencingToken)
                    .isInstanceOf(ZkLockException.class)
                    .hasMessageContaining(lock.getLockPath())
                    .hasMessageContaining("event thread");
        } finally {
            unblock.countDown();
        }
        assertThat(lock.fencingToken()).isPositive();
        lock.release();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void fencingToken_ofLaterAcquisitions_grows() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));

        lock.acquire();
        long first = lock.fencingToken();
        lock.acquire();
        assertThat(lock.fencingToken()).isEqualTo(first);
        lock.release();
        lock.release();
        other.acquire();
        long second = other.fencingToken();
        other.release();

        assertThat(first).isPositive();
        assertThat(second).isGreaterThan(first);
        assertThatThrownBy(lock::fencingToken)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(zk.path("lock"));
    }

    @Test
    void release_byThreadThatHoldsNothing_throwsIllegalMonitorState() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));

        assertThatThrownBy(lock::release)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(zk.path("lock"))
                .hasMessageContaining(Thread.currentThread().getName());
    }

    @Test
    void release_byAnotherThread_throwsIllegalMonitorStateAndKeepsTheHold() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        lock.acquire();
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.run(lock::release))
                    .failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .withMessageContaining(zk.path("lock"))
                    .withMessageContaining("lock-actor-other");
        }
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.participantNodes()).hasSize(1);
        lock.release();
    }

    @Test
    void acquire_byManyThreadsOfOneInstance_servesThemInQueueOrder() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        lock.acquire();
        List<LockActor> actors = List.of(LockActor.start("a"), LockActor.start("b"), LockActor.start("c"));
        List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            for (LockActor actor : actors) {
                int before = lock.participantNodes().size();
                actor.execute(() -> {
                    lock.acquire();
                    order.add(actor.toString());
                    lock.release();
                    return null;
                });
                await().until(() -> lock.participantNodes().size() == before + 1);
            }
            lock.release();
            await().until(() -> order.size() == 3);
            assertThat(order).containsExactly("LockActor[a]", "LockActor[b]", "LockActor[c]");
        } finally {
            for (LockActor actor : actors) {
                actor.close();
            }
        }
    }

    @Test
    void curatorNames_isOwnedByCurrentThreadGetParticipantNodesAndGetLockPath_answerAsCuratorsMutex() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        assertThat(lock.isOwnedByCurrentThread()).isFalse();
        assertThat(lock.getLockPath()).isNull();

        lock.acquire();

        assertThat(lock.isOwnedByCurrentThread()).isTrue();
        assertThat(lock.getParticipantNodes()).containsExactlyElementsOf(lock.participantNodes());
        assertThat(lock.getLockPath()).isEqualTo(lock.participantNodes().get(0));
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.submit(lock::getLockPath).get()).isNull();
        }
        lock.release();
        assertThat(lock.isOwnedByCurrentThread()).isFalse();
        assertThat(lock.getLockPath()).isNull();
    }

    @Test
    void builderLockData_givesEveryNodeTheData_asCopiedWhenGiven() throws Exception {
        byte[] data = {1, 2, 3, 4};
        ZkReentrantLock.Builder builder =
                ZkReentrantLock.builder(zk.newClient(), zk.path("lock")).lockData(data);
        ZkReentrantLock lock = builder.build();
        ZkReentrantLock cohort = builder.localHandOff().build();
        data[0] = 5;
        CuratorFramework reader = zk.newClient();

        lock.acquire();
        assertThat(reader.getData().forPath(lock.getLockPath())).containsExactly(1, 2, 3, 4);
        lock.release();
        cohort.acquire();
        assertThat(reader.getData().forPath(cohort.getLockPath())).containsExactly(1, 2, 3, 4);
        cohort.release();

        assertThat(lock.participantNodes()).isEmpty();
        assertThatThrownBy(
                        () -> ZkReentrantLock.builder(reader, zk.path("lock")).lockData(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("lockData");
    }
}
