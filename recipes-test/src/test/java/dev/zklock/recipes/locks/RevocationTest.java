package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Revocation with Curator's protocol, both ways on one path: zklock's holders hear Curator's Revoker, and back. */
@Timeout(60)
final class RevocationTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void curatorRevoker_reachesARevocableZklockHolder_oncePerRequestOffTheEventThread() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        List<String> heardOn = new CopyOnWriteArrayList<>();
        CountDownLatch twice = new CountDownLatch(2);
        lock.makeRevocable(forLock -> {
            assertThat(forLock).isSameAs(lock);
            heardOn.add(Thread.currentThread().getName());
            twice.countDown();
        });
        CuratorFramework other = zk.newClient();
        try (LockActor holder = LockActor.start("holder")) {
            holder.run(lock::acquire).join();
            String node = holder.submit(lock::getLockPath).join();

            Revoker.attemptRevoke(other, node);
            await().until(() -> heardOn.size() == 1);
            Revoker.attemptRevoke(other, node);

            assertThat(twice.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(heardOn).hasSize(2).noneMatch(name -> name.contains("EventThread"));
            holder.run(lock::release).join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void zklockRevocation_reachesARevocableCuratorHolder() throws Exception {
        InterProcessMutex curator = new InterProcessMutex(zk.newClient(), zk.path("lock"));
        CountDownLatch heard = new CountDownLatch(1);
        curator.makeRevocable(forLock -> heard.countDown());
        ZkReentrantLock zklock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        try (LockActor holder = LockActor.start("curator-holder")) {
            holder.run(curator::acquire).join();

            int asked = zklock.requestRevocation();

            assertThat(asked).isEqualTo(1);
            assertThat(heard.await(10, TimeUnit.SECONDS)).isTrue();
            holder.run(curator::release).join();
        }
        assertThat(zklock.participantNodes()).isEmpty();
    }

    @Test
    void requestRevocation_onAReadWriteLock_asksTheWriterWhoHolds() throws Exception {
        ZkReadWriteLock readWrite = new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
        CountDownLatch heard = new CountDownLatch(1);
        readWrite.writeLock().makeRevocable(forLock -> heard.countDown());
        ZkReadWriteLock other = new ZkReadWriteLock(zk.newClient(), zk.path("rw"));
        try (LockActor writer = LockActor.start("writer");
                LockActor reader = LockActor.start("reader")) {
            writer.run(readWrite.writeLock()::acquire).join();
            reader.run(() -> other.readLock().acquire(30, TimeUnit.SECONDS));
            await().until(() -> other.participantNodes().size() == 2);

            int asked = other.requestRevocation();

            assertThat(asked).isEqualTo(1); // the writer; the waiting reader holds nothing
            assertThat(heard.await(10, TimeUnit.SECONDS)).isTrue();
            writer.run(readWrite.writeLock()::release).join();
            await().until(() -> reader.submit(() -> other.readLock().isHeldByCurrentThread())
                    .join());
            reader.run(other.readLock()::release).join();
        }
        assertThat(other.participantNodes()).isEmpty();
    }

    @Test
    void revocationRequest_forANodeAlreadyGone_isNotAnError() throws Exception {
        Revocation.request(
                zk.newClient(), zk.path("lock") + "/_c_00000000-0000-4000-8000-000000000000-lock-0000000001");

        assertThatThrownBy(() -> Revocation.request(null, "/a"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
        assertThatThrownBy(() -> Revocation.request(zk.newClient(), "relative"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'relative'");
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        assertThatThrownBy(() -> lock.makeRevocable(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("listener");
        assertThatThrownBy(() -> lock.makeRevocable(forLock -> {}, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("executor");
    }
}
