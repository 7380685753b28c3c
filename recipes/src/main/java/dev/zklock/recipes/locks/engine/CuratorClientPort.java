package dev.zklock.recipes.locks.engine;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * The production {@link ClientPort}: a Curator client, its ZooKeeper handle and the client's {@link ContextTimer}. One
 * per {@link ClientContext}. The handle of the current session is made once per ZooKeeper instance and session and
 * then handed out again, so a step that sends allocates none. Safe for use by multiple threads.
 */
final class CuratorClientPort implements ClientPort {
    private final CuratorFramework client;
    private final ContextTimer timer;
    private volatile ZooKeeperHandle last; // the handle handed out last, handed out again while it is current

    CuratorClientPort(CuratorFramework client, ContextTimer timer) {
        this.client = client;
        this.timer = timer;
    }

    @Override
    public boolean isStarted() {
        return client.getState() == CuratorFrameworkState.STARTED;
    }

    @Override
    public boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    @Override
    public ZooKeeperHandle current() {
        ZooKeeper zk;
        try {
            zk = client.getZookeeperClient().getZooKeeper();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception connectionProblemOrClosed) {
            return null;
        }
        ZooKeeperHandle known = last;
        if (known != null && known.zooKeeper() == zk && known.sessionId() == zk.getSessionId()) {
            return known;
        }
        ZooKeeperHandle made = ZooKeeperHandle.on(zk);
        last = made;
        return made;
    }

    /** Curator's {@code blockUntilConnected}, in whole milliseconds (at least one). */
    @Override
    public void awaitConnected(LockPath lock, long nanos) throws InterruptedException {
        long millis = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(nanos), Integer.MAX_VALUE));
        client.blockUntilConnected((int) millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public long requestTimeoutNanos() {
        ZooKeeperHandle handle = current();
        return handle != null
                ? handle.requestTimeoutNanos()
                : TimeUnit.MILLISECONDS.toNanos(client.getZookeeperClient().getConnectionTimeoutMs());
    }

    @Override
    public TimerPort timer() {
        return timer;
    }

    @Override
    public int sessionTimeoutMs() {
        return client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
    }

    @Override
    public Executor executor() {
        return ForkJoinPool.commonPool();
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener) {
        client.getConnectionStateListenable().addListener(listener);
    }

    @Override
    public void makeContainer(LockPath lock, Consumer<Code> made) {
        try {
            lock.client()
                    .create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .inBackground((c, event) -> made.accept(Code.get(event.getResultCode())))
                    .forPath(lock.path(), new byte[0]);
        } catch (Exception e) {
            throw lock.callFailure("create the path", e);
        }
    }

    /** Curator's blocking create, as its locks make their path; another client's making it first is success. */
    @Override
    public void makeContainerNow(LockPath lock) throws InterruptedException {
        try {
            lock.client()
                    .create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .forPath(lock.path(), new byte[0]);
        } catch (KeeperException.NodeExistsException made) {
            // another client made it first
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw lock.callFailure("create the lock path", e);
        }
    }

    /** As Curator's own create makes it: its transaction builder, with the client's default data and ACL provider. */
    @Override
    public CreateRequest createRequest(LockPath lock, String nodePath, byte[] data, CreateMode mode) {
        try {
            var builder = lock.client().transactionOp().create().withMode(mode);
            CuratorOp op = data == null ? builder.forPath(nodePath) : builder.forPath(nodePath, data);
            return (CreateRequest) op.get().toRequestRecord();
        } catch (Exception e) {
            throw lock.callFailure("prepare the create of a lock node", e);
        }
    }

    @Override
    public void deleteInBackground(LockPath lock, String nodePath) {
        NodeDeletes.deleteInBackground(lock, nodePath);
    }

    @Override
    public void sweepInBackground(LockPath lock, String prefix) {
        NodeDeletes.sweepInBackground(lock, prefix);
    }
}
