package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.LockActor;
import dev.zklock.recipes.test.ZooKeeperExtension;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code expire(node)}: a hold ended from outside its holder, as a time to live ends it. The hold is LOST before the
 * call returns, its node goes, the next waiter of another process gets the lock, and the holder's release afterwards
 * throws nothing and deletes nothing of anyone else's. Under a cohort with a local waiter, nothing passes:
 * {@code AdmissionTest.strangerDeletesTheCohortsNode_theLocalWaiterNeverHoldsBesideTheSessionThatGotIt(EXPIRED)}.
 */
@Timeout(60)
final class ExpireTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /**
     * With and without local hand-off. Allowed: LOST at the return of {@code expire}, listeners told, the other
     * process's waiter in, the holder's release quiet. Forbidden: a hold still HELD after its node was deleted (what a
     * plain hold said before {@code expire} existed), or the node left behind.
     */
    @ParameterizedTest(name = "local hand-off: {0}")
    @ValueSource(booleans = {false, true})
    void expire_fromAnotherThread_losesTheHoldAtOnceAndLetsTheNextProcessIn(boolean localHandOff) throws Exception {
        ZkReentrantLock.Builder builder = ZkReentrantLock.builder(zk.newClient(), zk.path("lock"));
        ZkReentrantLock lock = localHandOff ? builder.localHandOff().build() : builder.build();
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        List<LockState> heard = new CopyOnWriteArrayList<>();
        lock.addStateListener(event -> heard.add(event.state()));
        try (LockActor holder = LockActor.start("holder");
                LockActor waiter = LockActor.start("waiter")) {
            holder.run(lock::acquire).join();
            String node = holder.submit(lock::getLockPath).join();
            CompletableFuture<Boolean> theirs = waiter.submit(() -> other.acquire(10, TimeUnit.SECONDS));
            await().until(() -> lock.participantNodes().size() == 2);

            assertThat(lock.expire(node)).isTrue();

            assertThat(holder.submit(lock::holdState).join()).contains(LockState.LOST);
            assertThat(heard).contains(LockState.LOST);
            assertThat(theirs.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(lock.expire(node)).isFalse(); // lost already
            holder.run(lock::release).join();
            assertThat(lock.participantNodes()).hasSize(1); // theirs only
            waiter.run(other::release).join();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void expire_ofANodeNoHoldStandsOn_isFalseAndTouchesNothing() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        lock.acquire();
        try {
            String mine = lock.getLockPath();
            assertThat(other.expire(mine)).isFalse(); // another client's node: no hold of other stands on it
            assertThat(lock.expire(zk.path("elsewhere") + "/lock-0000000001")).isFalse();
            assertThat(lock.holdState()).contains(LockState.HELD);
            assertThat(lock.participantNodes()).containsExactly(mine);
            assertThatThrownBy(() -> lock.expire(null))
                    .isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("node");
        } finally {
            lock.release();
        }
        assertThat(lock.participantNodes()).isEmpty();
    }

    /**
     * {@code LockHold.expire()}: the hold of an async acquire, which no thread owns, ended from outside as a time to
     * live ends it. Allowed: LOST at the return, listeners told, the other process's waiter in, a later close quiet.
     * Forbidden: the hold still HELD, the node left behind, a second expire that reports success. A multi-lock's hold,
     * on several nodes, refuses naming itself.
     */
    @Test
    void expire_ofAnAsyncHold_losesItAtOnceAndLetsTheNextProcessIn() throws Exception {
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        ZkReentrantLock other = new ZkReentrantLock(zk.newClient(), zk.path("lock"));
        List<LockState> heard = new CopyOnWriteArrayList<>();
        lock.addStateListener(event -> heard.add(event.state()));
        LockHold hold = lock.acquireAsync().get(10, TimeUnit.SECONDS);
        try (LockActor waiter = LockActor.start("waiter")) {
            CompletableFuture<Boolean> theirs = waiter.submit(() -> other.acquire(10, TimeUnit.SECONDS));
            await().until(() -> lock.participantNodes().size() == 2);

            assertThat(hold.expire()).isTrue();

            assertThat(hold.state()).isEqualTo(LockState.LOST);
            assertThat(heard).contains(LockState.LOST);
            assertThat(theirs.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(hold.expire()).isFalse(); // lost already
            hold.close();
            assertThat(lock.participantNodes()).hasSize(1); // theirs only
            waiter.run(other::release).join();
        }
        assertThat(lock.participantNodes()).isEmpty();

        ZkMultiLock multi = new ZkMultiLock(zk.newClient(), List.of(zk.path("a"), zk.path("b")));
        try (LockHold both = multi.hold(java.time.Duration.ofSeconds(10))) {
            assertThatThrownBy(both::expire)
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("several nodes");
        }
    }
}
