package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ServerCounters;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
final class ZkReadWriteLockTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private ZkReadWriteLock newLock() {
        return new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
    }

    @Test
    void readLock_manyReaders_shareIt() throws Exception {
        ZkReadWriteLock first = newLock();
        ZkReadWriteLock second = newLock();
        ZkReadWriteLock writer = newLock();

        first.readLock().acquire();
        assertThat(second.readLock().acquire(Duration.ZERO)).isTrue();

        assertThat(first.participantNodes()).hasSize(2).allMatch(node -> node.contains("-__READ__"));
        assertThat(first.writeLock().participantNodes()).isEmpty();
        assertThat(writer.writeLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        first.readLock().release();
        second.readLock().release();
        assertThat(first.participantNodes()).isEmpty();
    }

    @Test
    void writeLock_whenHeld_excludesReadersAndWriters() throws Exception {
        ZkReadWriteLock writer = newLock();
        ZkReadWriteLock other = newLock();

        writer.writeLock().acquire();

        assertThat(writer.writeLock().participantNodes())
                .singleElement()
                .asString()
                .contains("-__WRIT__");
        assertThat(other.readLock().acquire(Duration.ZERO)).isFalse();
        assertThat(other.writeLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        writer.writeLock().release();
        assertThat(other.readLock().acquire(Duration.ZERO)).isTrue();
        other.readLock().release();
    }

    @Test
    void readLock_behindAQueuedWriter_waitsForIt() throws Exception {
        ZkReadWriteLock reader = newLock();
        ZkReadWriteLock writer = newLock();
        ZkReadWriteLock lateReader = newLock();
        reader.readLock().acquire();
        try (LockActor writerActor = LockActor.start("writer")) {
            CompletableFuture<Boolean> written =
                    writerActor.submit(() -> writer.writeLock().acquire(20, TimeUnit.SECONDS));
            await().until(() -> reader.participantNodes().size() == 2);

            assertThat(lateReader.readLock().acquire(200, TimeUnit.MILLISECONDS))
                    .isFalse();

            reader.readLock().release();
            assertThat(written.get()).isTrue();
            writerActor
                    .submit(() -> {
                        writer.writeLock().release();
                        return null;
                    })
                    .join();
        }
        assertThat(lateReader.readLock().acquire(Duration.ZERO)).isTrue();
        lateReader.readLock().release();
    }

    @Test
    void writeLock_withReadersArrivingAllTheTime_isNotStarved() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger readerHolds = new AtomicInteger();
        List<LockActor> readers = new ArrayList<>();
        CountDownLatch readersRunning = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            ZkReadWriteLock lock = newLock();
            LockActor actor = LockActor.start("reader-" + i);
            readers.add(actor);
            actor.execute(() -> {
                readersRunning.countDown();
                while (!stop.get()) {
                    lock.readLock().acquire();
                    readerHolds.incrementAndGet();
                    lock.readLock().release();
                }
                return null;
            });
        }
        try {
            readersRunning.await();
            await().until(() -> readerHolds.get() > 30);
            ZkReadWriteLock writer = newLock();

            assertThat(writer.writeLock().acquire(20, TimeUnit.SECONDS)).isTrue();

            int duringWrite = readerHolds.get();
            assertThat(writer.readLock().acquire(Duration.ZERO)).isTrue(); // downgrade: at once
            assertThat(readerHolds.get()).isEqualTo(duringWrite);
            writer.writeLock().release();
            writer.readLock().release();
        } finally {
            stop.set(true);
            for (LockActor reader : readers) {
                reader.close();
            }
        }
    }

    @Test
    void writeLock_byAReader_failsAtOnceInsteadOfWaitingForever() throws Exception {
        ZkReadWriteLock lock = newLock();
        lock.readLock().acquire();

        assertThatThrownBy(() -> lock.writeLock().acquire(1, TimeUnit.MINUTES))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("upgrade")
                .hasMessageContaining(zk.path("rw"));
        assertThatThrownBy(lock.writeLock()::acquire).isInstanceOf(IllegalStateException.class);

        assertThat(lock.participantNodes()).hasSize(1);
        lock.readLock().release();
    }

    @Test
    void readLock_byTheWriter_downgradesWithoutLettingAWriterIn() throws Exception {
        ZkReadWriteLock lock = newLock();
        ZkReadWriteLock otherWriter = newLock();
        lock.writeLock().acquire();
        try (LockActor writerActor = LockActor.start("other-writer")) {
            CompletableFuture<Boolean> written =
                    writerActor.submit(() -> otherWriter.writeLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> lock.participantNodes().size() == 2);

            assertThat(lock.readLock().acquire(Duration.ZERO)).isTrue();
            String writeNode = lock.writeLock().participantNodes().get(0);
            String readNode = lock.readLock().participantNodes().get(0);
            assertThat(readNode.substring(readNode.length() - 10))
                    .isEqualTo(writeNode.substring(writeNode.length() - 10));
            lock.writeLock().release();

            assertThat(lock.participantNodes()).hasSize(2); // our read node, then the queued writer
            assertThat(written).isNotDone();
            assertThatThrownBy(lock.writeLock()::acquire).isInstanceOf(IllegalStateException.class);
            lock.readLock().release();
            assertThat(written.get()).isTrue();
            writerActor
                    .submit(() -> {
                        otherWriter.writeLock().release();
                        return null;
                    })
                    .join();
        }
    }

    /**
     * Fencing across a downgrade. A holds the write lock, B's writer queues behind it, A takes the read lock beside its
     * write node and lets both go, then B writes. Allowed: A's read hold carries A's write token, below B's. Forbidden:
     * a read token made of the read node's own creation zxid, which is above B's (B's write then looks stale to a store
     * that saw A's read; the simulator found it).
     */
    @Test
    void readLock_byTheWriter_carriesTheWriteTokenBelowTheQueuedWriters() throws Exception {
        ZkReadWriteLock lock = newLock();
        ZkReadWriteLock otherWriter = newLock();
        lock.writeLock().acquire();
        long writeToken = lock.writeLock().fencingToken();
        try (LockActor writerActor = LockActor.start("other-writer")) {
            CompletableFuture<Long> written = writerActor.submit(() -> {
                otherWriter.writeLock().acquire();
                long token = otherWriter.writeLock().fencingToken();
                otherWriter.writeLock().release();
                return token;
            });
            await().until(() -> lock.participantNodes().size() == 2);
            lock.readLock().acquire();
            long readToken = lock.readLock().fencingToken();
            lock.writeLock().release();
            lock.readLock().release();

            assertThat(readToken).isEqualTo(writeToken);
            assertThat(written.get()).isGreaterThan(readToken);
        }
    }

    /**
     * A writer behind a reader that waited for a writer who downgraded.
     *
     * <ul>
     *   <li>actors: the downgrader (this thread, its own client); a reader and a writer of another client, in this
     *       process (a waiter learns of a release from the front from any client of its process);
     *   <li>interleaving: the downgrader holds its write lock; the reader queues behind it, watching the write node; the
     *       writer queues behind the reader, watching it (a reader: no listing when it goes); the downgrader takes its
     *       read lock, a node that carries the write node's sequence and so ranks ahead of the reader, and releases its
     *       write lock; the reader holds, then releases;
     *   <li>acceptable: the writer waits for the downgrader's read node, and holds once it goes;
     *   <li>forbidden: the writer holds while the downgrader holds its read lock (the reader's release counted as one
     *       from the front, on the reader's listing from before the downgrade).
     * </ul>
     */
    @Test
    void writeLock_behindAReaderThatWaitedForADowngrader_waitsForTheDowngradersReadLock() throws Exception {
        ZkReadWriteLock downgrader = newLock();
        CuratorFramework other = zk.newClient();
        ZkReadWriteLock readerLock = new ZkReadWriteLock(other, zk.path("rw"));
        ZkReadWriteLock writerLock = new ZkReadWriteLock(other, zk.path("rw"));
        List<String> writerWatched = new CopyOnWriteArrayList<>();
        writerLock.writeLock().setHooks(new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                writerWatched.add(watchedNode);
            }
        });
        downgrader.writeLock().acquire();
        try (LockActor reader = LockActor.start("reader");
                LockActor writer = LockActor.start("writer")) {
            CompletableFuture<Boolean> read =
                    reader.submit(() -> readerLock.readLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> downgrader.participantNodes().size() == 2);
            CompletableFuture<Boolean> written =
                    writer.submit(() -> writerLock.writeLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> writerWatched.size() == 1);

            assertThat(downgrader.readLock().acquire(Duration.ZERO)).isTrue();
            String downgradersReadNode =
                    downgrader.readLock().participantNodes().get(0);
            downgrader.writeLock().release();
            assertThat(read.get()).isTrue();
            reader.submit(() -> {
                        readerLock.readLock().release();
                        return null;
                    })
                    .join();
            await().until(() -> written.isDone() || writerWatched.size() == 2);

            assertThat(written)
                    .as("the writer holds beside %s", downgradersReadNode)
                    .isNotDone();
            assertThat(downgradersReadNode).endsWith(writerWatched.get(1));
            downgrader.readLock().release();
            assertThat(written.get()).isTrue();
            writer.execute(() -> {
                writerLock.writeLock().release();
                return null;
            });
        }
    }

    @Test
    void nodes_carryTheLockDataGiven_asCopiedWhenTheLockWasMade() throws Exception {
        byte[] data = {1, 2, 3, 4};
        ZkReadWriteLock lock = new ZkReadWriteLock(zk.newClient(), zk.path("rw"), data);
        data[0] = 5;
        CuratorFramework reader = zk.newClient();

        lock.writeLock().acquire();
        lock.readLock().acquire();

        assertThat(lock.participantNodes())
                .hasSize(2)
                .allSatisfy(node -> assertThat(reader.getData().forPath(node)).containsExactly(1, 2, 3, 4));
        lock.readLock().release();
        lock.writeLock().release();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void readLock_byAnotherThreadWhileTheWriteLockIsHeld_waitsLikeAnyReader() throws Exception {
        ZkReadWriteLock lock = newLock();
        lock.writeLock().acquire();
        try (LockActor other = LockActor.start("other-thread")) {
            assertThat(other.submit(() -> lock.readLock().acquire(200, TimeUnit.MILLISECONDS))
                            .get())
                    .isFalse();
            assertThat(lock.participantNodes()).singleElement().asString().contains("-__WRIT__");

            CompletableFuture<Boolean> read = other.submit(() -> lock.readLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> lock.participantNodes().size() == 2);
            assertThat(read).isNotDone();
            lock.writeLock().release();
            assertThat(read.get()).isTrue();
            assertThat(lock.readLock().isHeldByCurrentThread()).isFalse();
            other.submit(() -> {
                        lock.readLock().release();
                        return null;
                    })
                    .join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void locks_areReentrantPerThread_andReleaseChecksTheOwner() throws Exception {
        ZkReadWriteLock lock = newLock();
        lock.writeLock().acquire();
        lock.writeLock().acquire();
        lock.readLock().acquire();
        lock.readLock().acquire();

        assertThat(lock.writeLock().getHoldCount()).isEqualTo(2);
        assertThat(lock.readLock().getHoldCount()).isEqualTo(2);
        assertThat(lock.participantNodes()).hasSize(2);
        try (LockActor other = LockActor.start("other")) {
            assertThat(other.run(lock.readLock()::release))
                    .failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(IllegalMonitorStateException.class)
                    .withMessageContaining(zk.path("rw"));
        }
        lock.writeLock().release();
        lock.writeLock().release();
        lock.readLock().release();
        lock.readLock().release();
        assertThat(lock.participantNodes()).isEmpty();
        assertThatThrownBy(lock.writeLock()::release).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void writeRelease_wakesTheReadersBehindItAndNoOneElse() throws Exception {
        ZkReadWriteLock holder = newLock();
        holder.writeLock().acquire();
        List<LockActor> actors = new ArrayList<>();
        java.util.Map<LockActor, org.apache.curator.framework.recipes.locks.InterProcessLock> roles =
                new java.util.HashMap<>();
        List<CompletableFuture<Boolean>> readersIn = new ArrayList<>();
        CountDownLatch watching = new CountDownLatch(4);
        QueueHooks countWatches = new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watching.countDown();
            }
        };
        try {
            // queue: holder's writer, reader-0, reader-1, a writer, reader-2
            for (String role : List.of("reader-0", "reader-1", "writer", "reader-2")) {
                ZkReadWriteLock lock = newLock();
                lock.readLock().setHooks(countWatches);
                lock.writeLock().setHooks(countWatches);
                LockActor actor = LockActor.start(role);
                actors.add(actor);
                roles.put(actor, role.startsWith("reader") ? lock.readLock() : lock.writeLock());
                int queued = holder.participantNodes().size();
                CompletableFuture<Boolean> in = actor.submit(() -> role.startsWith("reader")
                        ? lock.readLock().acquire(30, TimeUnit.SECONDS)
                        : lock.writeLock().acquire(30, TimeUnit.SECONDS));
                if (role.startsWith("reader-0") || role.startsWith("reader-1")) {
                    readersIn.add(in);
                }
                await().until(() -> holder.participantNodes().size() == queued + 1);
            }
            watching.await();

            ServerCounters before = zk.counters();
            holder.writeLock().release();
            for (CompletableFuture<Boolean> in : readersIn) {
                assertThat(in.get()).isTrue();
            }
            ServerCounters after = zk.counters();

            assertThat(after.watchEventsSince(before))
                    .isEqualTo(3); // reader-0 and reader-1, and the holder's own voucher; not the writer, not reader-2
            assertThat(after.requestsSince(before)).isEqualTo(1); // the delete: the readers needed no listing
            for (LockActor actor : actors) {
                actor.execute(() -> {
                    roles.get(actor).release(); // in queue order: the readers, then the writer, then reader-2
                    return null;
                });
            }
        } finally {
            for (LockActor actor : actors) {
                actor.close();
            }
        }
    }

    @Test
    void acquireAndRelease_uncontended_costFourRequestsForEitherLock() throws Exception {
        ZkReadWriteLock lock =
                new ZkReadWriteLock(RequestCountTest.clientWithPersistentPath(zk, zk.path("rw")), zk.path("rw"));
        lock.readLock().acquire();
        lock.readLock().release();

        ServerCounters before = zk.counters();
        lock.readLock().acquire();
        lock.readLock().release();
        ServerCounters read = zk.counters();
        lock.writeLock().acquire();
        lock.writeLock().release();
        ServerCounters write = zk.counters();

        System.out.printf(
                "[requests] read/write uncontended: read %d, write %d per acquire+release%n",
                read.requestsSince(before), write.requestsSince(read));
        // create + listing pipelined, the voucher's read (not waited for), delete
        assertThat(read.requestsSince(before)).isEqualTo(4);
        assertThat(write.requestsSince(read)).isEqualTo(4);
    }

    @Test
    void handOff_writerToWaitingWriter_costsTheDeleteAndOneListing() throws Exception {
        ZkReadWriteLock holder = newLock();
        ZkReadWriteLock waiter = newLock();
        holder.writeLock().acquire();
        CountDownLatch watching = new CountDownLatch(1);
        waiter.writeLock().setHooks(new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watching.countDown();
            }
        });
        try (LockActor actor = LockActor.start("waiting-writer")) {
            CompletableFuture<Boolean> written =
                    actor.submit(() -> waiter.writeLock().acquire(30, TimeUnit.SECONDS));
            watching.await();

            ServerCounters before = zk.counters();
            holder.writeLock().release();
            assertThat(written.get()).isTrue();
            // the new holder's release: its reply comes after those of everything it sent, the read that sets its
            // voucher included (not waited for), so the counts below are whole when it returns
            actor.run(waiter.writeLock()::release).join();
            ServerCounters after = zk.counters();

            System.out.printf(
                    "[requests] write hand-off and the new holder's release: %d requests, %d watch events%n",
                    after.requestsSince(before), after.watchEventsSince(before));
            // the delete, and one listing: after a writer goes, a writer lists (a Curator downgrade may hide there);
            // the read that sets the new holder's voucher (the watch its wait set on its own node is not carried over
            // to the node the listing grants: a request to save); and the new holder's delete. The events: the
            // waiter's watch on the holder's node, and each holder's own voucher, fired by its own delete.
            assertThat(after.requestsSince(before)).isEqualTo(4);
            assertThat(after.watchEventsSince(before)).isEqualTo(3);
        }
    }
}
