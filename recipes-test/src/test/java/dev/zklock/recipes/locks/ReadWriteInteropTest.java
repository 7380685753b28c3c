package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.locks.engine.QueueHooks;
import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** zklock's and Curator's read/write locks on one path: each kind against the other, both ways, and downgrades. */
@Timeout(120)
final class ReadWriteInteropTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    private ZkReadWriteLock zklock() {
        return new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
    }

    private InterProcessReadWriteLock curator() {
        return new InterProcessReadWriteLock(zk.newClient(), zk.path("rw"));
    }

    @Test
    void readers_ofBothLibraries_shareAndExcludeWritersOfTheOther() throws Exception {
        ZkReadWriteLock ours = zklock();
        InterProcessReadWriteLock theirs = curator();
        ZkReadWriteLock ourWriter = zklock();
        InterProcessReadWriteLock theirWriter = curator();

        ours.readLock().acquire();
        assertThat(theirs.readLock().acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(ourWriter.writeLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(theirWriter.writeLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        ours.readLock().release();
        theirs.readLock().release();

        assertThat(theirWriter.writeLock().acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(ours.readLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(ourWriter.writeLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        theirWriter.writeLock().release();

        assertThat(ourWriter.writeLock().acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(theirs.readLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(theirWriter.writeLock().acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        ourWriter.writeLock().release();
    }

    @Test
    void mixedContention_readersAndWritersOfBothLibraries_neverBreakExclusion() throws Exception {
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger readHolds = new AtomicInteger();
        List<InterProcessLock> locks = new ArrayList<>();
        List<Boolean> isWriter = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            locks.add(zklock().readLock());
            isWriter.add(false);
            locks.add(curator().readLock());
            isWriter.add(false);
        }
        locks.add(zklock().writeLock());
        isWriter.add(true);
        locks.add(curator().writeLock());
        isWriter.add(true);
        locks.add(zklock().writeLock());
        isWriter.add(true);

        CountDownLatch start = new CountDownLatch(1);
        List<LockActor> actors = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < locks.size(); i++) {
            InterProcessLock lock = locks.get(i);
            boolean writer = isWriter.get(i);
            LockActor actor = LockActor.start((writer ? "writer-" : "reader-") + i);
            actors.add(actor);
            done.add(actor.submit(() -> {
                start.await();
                for (int round = 0; round < 15; round++) {
                    assertThat(lock.acquire(30, TimeUnit.SECONDS)).isTrue();
                    if (writer) {
                        if (writers.incrementAndGet() != 1 || readers.get() != 0) {
                            violations.incrementAndGet();
                        }
                        writers.decrementAndGet();
                    } else {
                        readers.incrementAndGet();
                        readHolds.incrementAndGet();
                        if (writers.get() != 0) {
                            violations.incrementAndGet();
                        }
                        readers.decrementAndGet();
                    }
                    lock.release();
                }
                return null;
            }));
        }
        start.countDown();
        for (CompletableFuture<Void> future : done) {
            future.get();
        }
        for (LockActor actor : actors) {
            actor.close();
        }

        assertThat(violations).hasValue(0);
        assertThat(readHolds).hasValue(6 * 15);
    }

    @Test
    void zklockWriter_whileCuratorDowngrades_listsAgainAndWaitsForTheReadNode() throws Exception {
        InterProcessReadWriteLock theirs = curator();
        ZkReadWriteLock ours = zklock();
        theirs.writeLock().acquire();
        AtomicInteger watches = new AtomicInteger();
        ours.writeLock().setHooks(new QueueHooks() {
            @Override
            public void watchSet(String lockPath, String ourNode, String watchedNode) {
                watches.incrementAndGet();
            }
        });
        try (LockActor actor = LockActor.start("zklock-writer")) {
            CompletableFuture<Boolean> written =
                    actor.submit(() -> ours.writeLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> watches.get() == 1); // watching Curator's write node

            assertThat(theirs.readLock().acquire(5, TimeUnit.SECONDS)).isTrue(); // Curator's downgrade
            theirs.writeLock().release();

            // Curator's read node carries its writer's sequence: ahead of our writer, which must list and wait on it.
            await().until(() -> written.isDone() || watches.get() == 2);
            assertThat(written).isNotDone();
            theirs.readLock().release();
            assertThat(written.get()).isTrue();
            actor.run(ours.writeLock()::release).join();
        }
    }

    @Test
    void curatorWriter_whileZklockDowngrades_waitsForOurReadNode() throws Exception {
        ZkReadWriteLock ours = zklock();
        InterProcessReadWriteLock theirs = curator();
        ours.writeLock().acquire();
        try (LockActor actor = LockActor.start("curator-writer")) {
            CompletableFuture<Boolean> written =
                    actor.submit(() -> theirs.writeLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> ours.participantNodes().size() == 2);

            ours.readLock().acquire();
            ours.writeLock().release();

            assertThat(theirs.readLock().acquire(200, TimeUnit.MILLISECONDS)).isFalse(); // behind the queued writer
            assertThat(written).isNotDone();
            ours.readLock().release();
            assertThat(written.get()).isTrue();
            actor.run(theirs.writeLock()::release).join();
        }
    }
}
