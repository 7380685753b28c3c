package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.zklock.recipes.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The client's namespace, ACL provider and default data apply to lock nodes; container parents come and go. */
@Timeout(60)
final class ClientSetupTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    @Test
    void acquire_namespacedClient_putsNodesUnderTheNamespaceAndSharesThemWithCurator() throws Exception {
        String namespace = zk.basePath().substring(1) + "/ns";
        CuratorFramework namespaced = zk.newClient(builder -> builder.namespace(namespace));
        CuratorFramework plain = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(namespaced, "/lock");
        InterProcessMutex curator =
                new InterProcessMutex(zk.newClient(builder -> builder.namespace(namespace)), "/lock");

        lock.acquire();

        assertThat(lock.participantNodes()).singleElement().asString().startsWith("/lock/_c_");
        List<String> children = plain.getChildren().forPath("/" + namespace + "/lock");
        assertThat(children).singleElement().asString().endsWith("lock-0000000000");
        assertThat(curator.acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        lock.release();
        assertThat(curator.acquire(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.acquire(Duration.ZERO)).isFalse();
        curator.release();
    }

    @Test
    void acquire_clientWithAclProvider_givesNodesTheProvidersAcl() throws Exception {
        byte[] credentials = "alice:secret".getBytes(StandardCharsets.UTF_8);
        CuratorFramework alice = zk.newClient(
                builder -> builder.authorization("digest", credentials).aclProvider(Acls.CREATOR_ONLY));
        CuratorFramework stranger = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(alice, zk.path("lock"));

        lock.acquire();
        String node = lock.participantNodes().get(0);

        List<ACL> acl = alice.getACL().forPath(node);
        assertThat(acl).singleElement().satisfies(entry -> {
            assertThat(entry.getId().getScheme()).isEqualTo("digest");
            assertThat(entry.getId().getId()).startsWith("alice:");
            assertThat(entry.getPerms()).isEqualTo(ZooDefs.Perms.ALL);
        });
        assertThatThrownBy(() -> stranger.delete().forPath(node)).isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> stranger.getData().forPath(node)).isInstanceOf(KeeperException.NoAuthException.class);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.release();
        assertThat(lock.participantNodes()).isEmpty();
    }

    @Test
    void acquire_strangerWithoutRights_getsZkLockExceptionNamingPathAndCode() throws Exception {
        byte[] credentials = "alice:secret".getBytes(StandardCharsets.UTF_8);
        CuratorFramework alice = zk.newClient(builder -> builder.authorization("digest", credentials));
        alice.create()
                .creatingParentsIfNeeded()
                .withACL(ZooDefs.Ids.CREATOR_ALL_ACL)
                .forPath(zk.path("lock"));
        ZkReentrantLock lock = new ZkReentrantLock(zk.newClient(), zk.path("lock"));

        assertThatThrownBy(() -> lock.acquire(5, TimeUnit.SECONDS))
                .isInstanceOfSatisfying(ZkLockException.class, e -> {
                    assertThat(e.lockPath()).isEqualTo(zk.path("lock"));
                    assertThat(e.code()).contains(KeeperException.Code.NOAUTH);
                    assertThat(e.isCleanedUp()).isTrue();
                })
                .hasMessageContaining(zk.path("lock"))
                .hasMessageContaining("NOAUTH");
        alice.delete().forPath(zk.path("lock"));
    }

    @Test
    void acquire_clientWithDefaultData_writesItIntoTheNode() throws Exception {
        byte[] data = "host-17".getBytes(StandardCharsets.UTF_8);
        CuratorFramework client = zk.newClient(builder -> builder.defaultData(data));
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));

        lock.acquire();

        assertThat(client.getData().forPath(lock.participantNodes().get(0))).isEqualTo(data);
        lock.release();
    }

    @Test
    void acquire_afterTheContainerParentWasReaped_makesItAgainAndTheTokenStillGrows() throws Exception {
        CuratorFramework client = zk.newClient();
        ZkReentrantLock lock = new ZkReentrantLock(client, zk.path("lock"));
        lock.acquire();
        long first = lock.fencingToken();
        String firstNode = lock.participantNodes().get(0);
        lock.release();

        await().atMost(20, TimeUnit.SECONDS).until(() -> client.checkExists().forPath(zk.path("lock")) == null);

        lock.acquire();
        assertThat(lock.participantNodes().get(0)).endsWith(firstNode.substring(firstNode.length() - 10));
        assertThat(lock.fencingToken()).isGreaterThan(first);
        lock.release();
    }
}
