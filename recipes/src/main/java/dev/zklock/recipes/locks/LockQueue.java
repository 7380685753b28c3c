package dev.zklock.recipes.locks;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.proto.CreateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue of one lock path: what every recipe shares to take a place in the queue, wait for its turn, and leave.
 * One instance per lock object; it holds no per-acquisition state (that lives in {@link Acquisition}) and is safe for use
 * by multiple threads.
 *
 * <p>Paths kept here are relative to the client's namespace, as Curator's are; {@link #fixed(String)} prefixes the
 * namespace for the raw requests of {@link ZkSession}.
 */
final class LockQueue {
    private static final Logger logger = LoggerFactory.getLogger(LockQueue.class);

    private final CuratorFramework client;
    private final String path;
    private final String lockName;
    private final LockDriver driver;
    private final byte[] data;
    private volatile QueueHooks hooks = QueueHooks.NONE;
    private volatile ClientContext context; // looked up once; a client's context lasts as long as the client
    private final List<LockStateListener> listeners;
    private volatile byte[] nodeData; // Curator's choice for our nodes' data, taken from its builder on first use
    private volatile List<ACL> nodeAcl; // and the ACL the client's provider gives; then reused
    private final String fixedPath;

    /**
     * A queue with state listeners of its own.
     *
     * @param data the data of each lock node, or null for the client's default data (as Curator's mutex does)
     */
    LockQueue(CuratorFramework client, String path, String lockName, LockDriver driver, byte[] data) {
        this(client, path, lockName, driver, data, new CopyOnWriteArrayList<>());
    }

    /**
     * @param data the data of each lock node, or null for the client's default data (as Curator's mutex does)
     * @param listeners the state listeners of the lock object, told of every change of a hold's state
     */
    LockQueue(
            CuratorFramework client,
            String path,
            String lockName,
            LockDriver driver,
            byte[] data,
            List<LockStateListener> listeners) {
        this.client = Objects.requireNonNull(client, "client");
        this.path = Checks.lockPath(path);
        this.lockName = lockName;
        this.driver = Objects.requireNonNull(driver, "driver");
        this.data = data == null ? null : data.clone();
        this.fixedPath = fixed(this.path);
        this.listeners = listeners;
    }

    /**
     * Takes a place in the queue and waits for the driver to say it holds the lock, until the deadline.
     *
     * @return our node, or empty if the deadline passed first (nothing is left behind)
     */
    Optional<LockNode> acquire(Deadline deadline) throws InterruptedException {
        checkCanAcquire();
        return new BlockingRunner(List.of(this), deadline, null).run().map(nodes -> nodes.get(0));
    }

    /**
     * Creates a node that holds at once, ranked with {@code alongside} (it carries that node's sequence and is not
     * sequential), as Curator's read/write lock does when a writer downgrades: the caller guarantees that it holds.
     */
    Optional<LockNode> acquireAlongside(LockNode alongside, Deadline deadline) throws InterruptedException {
        checkCanAcquire();
        return new BlockingRunner(List.of(this), deadline, NodeNames.sequenceKey(alongside.name()))
                .run()
                .map(nodes -> nodes.get(0));
    }

    /** Checks, before any ZooKeeper call, that an acquire may start. */
    void checkCanAcquire() throws InterruptedException {
        Checks.requireStarted(client, path);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + path + "'");
        }
    }

    /** Starts the hold of a node just granted: its state is tracked by the client's one connection listener. */
    LockNode track(LockNode node) {
        context().tracker().track(node);
        return node;
    }

    /** Ends a hold: stops tracking it, reports how long it was held, and deletes its node ({@link #deleteHeld(LockNode)}). */
    void release(LockNode hold) {
        untrack(hold);
        metrics().released(path, hold.heldNanos());
        deleteHeld(hold);
    }

    /** The state listeners of the lock object, told of every change of a hold's state. */
    List<LockStateListener> listeners() {
        return listeners;
    }

    /** Returns the context of the lock's client: hold tracking, metrics, hand-off state, timer. */
    ClientContext context() {
        ClientContext known = context;
        if (known == null) {
            known = ClientContext.of(client);
            context = known;
        }
        return known;
    }

    /** Returns a fresh protected prefix for our next node: {@code _c_<uuid>-<lockName>}. */
    String newPrefix() {
        return context().ids().newPrefix(lockName);
    }

    MetricsDispatch metrics() {
        return context().metrics();
    }

    void untrack(LockNode hold) {
        context().tracker().untrack(hold);
    }

    /** Returns a transaction check that our node still exists. */
    CuratorOp checkOp(LockNode node) {
        try {
            return client.transactionOp().check().forPath(node.path());
        } catch (Exception e) {
            throw failure("prepare a check of " + node.path(), e, true);
        }
    }

    /** Deletes a held node. Never blocks past one request timeout, and never throws for a lost connection. */
    void deleteHeld(LockNode node) {
        hooks.beforeRelease(path, node.name());
        ClientContext ours = context();
        ours.frontNodes().releasing(node);
        ReleasesInFlight.Release release = ours.releases().begin(node.fixedPath(), node.sessionId());
        try {
            if (client.getState() != CuratorFrameworkState.STARTED) {
                logger.debug("{}: client closed; {} went with its session", path, node);
            } else if (delete(node.path())) {
                logger.debug("{}: released {}", path, node);
            }
        } finally {
            ours.frontNodes().released(node);
            ours.releases().end(release);
        }
    }

    /** Returns the full paths of the children of the lock path in queue order; one listing. */
    List<String> participantNodes() throws InterruptedException {
        Checks.requireStarted(client, path);
        List<String> children;
        try {
            children = client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw failure("list the queue", e, true);
        }
        List<String> paths = new ArrayList<>();
        for (String child : driver.sort(children)) {
            paths.add(ZKPaths.makePath(path, child));
        }
        return List.copyOf(paths);
    }

    /**
     * Deletes a node of ours, waiting for the reply on the calling thread (at most one request timeout, after which
     * ZooKeeper's client fails the request with a lost connection). If the connection is down, the reply is a lost
     * connection, or the thread is interrupted (the flag is kept), Curator's guaranteed delete takes over and retries
     * when the connection comes back. Returns whether the node is known to be gone.
     */
    boolean delete(String nodePath) {
        if (client.getZookeeperClient().isConnected()) {
            ZkSession session = currentSessionQuietly();
            Reply reply = session == null ? null : deleteNow(session, fixed(nodePath));
            if (reply != null && (reply.isOk() || reply.code() == KeeperException.Code.NONODE)) {
                return true;
            }
            if (reply != null && !reply.isRetryable()) {
                throw failure("delete " + nodePath, KeeperException.create(reply.code(), nodePath), false);
            }
        }
        deleteInBackground(nodePath);
        return false;
    }

    /** Deletes on the calling thread; an interrupt leaves the delete to the background and keeps the flag. */
    private static Reply deleteNow(ZkSession session, String fixedNodePath) {
        try {
            return session.deleteNow(fixedNodePath);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Hands a delete to Curator's guaranteed delete, which retries it in the background until it succeeds. */
    void deleteInBackground(String nodePath) {
        logger.warn("{}: could not delete {} now; it will be deleted when the connection returns", path, nodePath);
        try {
            client.delete().guaranteed().inBackground().forPath(nodePath);
        } catch (Exception e) {
            logger.warn("{}: guaranteed delete of {} not scheduled; it goes when its session ends", path, nodePath, e);
        }
    }

    /**
     * Finds and deletes, in the background, the node a create with {@code prefix} may have made before its connection
     * was lost: the reply never came, so only its protected name can find it.
     */
    void sweepInBackground(String prefix) {
        logger.warn("{}: a create with prefix {} had no reply; deleting its node if it exists", path, prefix);
        try {
            client.getChildren()
                    .inBackground((c, event) -> {
                        for (String child : event.getChildren() == null ? List.<String>of() : event.getChildren()) {
                            if (child.startsWith(prefix)) {
                                deleteInBackground(ZKPaths.makePath(path, child));
                            }
                        }
                    })
                    .forPath(path);
        } catch (Exception e) {
            logger.warn("{}: sweep for prefix {} not scheduled; the node goes when its session ends", path, prefix, e);
        }
    }

    /** Returns the sorted listing as the driver sees it, and checks what the driver answers. */
    LockDecision decide(LockQueueView view) {
        LockDecision decision = driver.decide(view);
        Checks.requireArgument(decision != null, "driver %s returned no decision for lock '%s'", driver, path);
        if (!decision.holdsLock()) {
            int watched = view.children().indexOf(decision.nodeToWatch());
            Checks.requireArgument(
                    watched >= 0 && watched < view.ourIndex(),
                    "driver %s named node '%s' to watch, which is not ranked before our node '%s' at lock '%s'",
                    driver,
                    decision.nodeToWatch(),
                    view.ourNode(),
                    path);
        }
        return decision;
    }

    LockQueueView view(List<String> children, String ourNode) {
        return LockQueueView.of(path, driver.sort(children), ourNode);
    }

    /**
     * Makes the lock path as a container, and its parents if need be, as Curator's locks do: one request when only the
     * lock path is missing (the server reaps an empty container), more on first use of a path.
     */
    void createParents() throws InterruptedException {
        try {
            client.create()
                    .creatingParentContainersIfNeeded()
                    .withMode(CreateMode.CONTAINER)
                    .forPath(path, new byte[0]);
        } catch (KeeperException.NodeExistsException made) {
            // another client made it first
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw failure("create the lock path", e, true);
        }
    }

    /**
     * Returns the create request of a lock node named {@code name} (plus a sequence, for a sequential mode), with the
     * namespaced path, the data (ours, or the client's default) and the ACL from the client's {@code ACLProvider},
     * exactly as Curator's own create would make them. Curator's transaction builder makes the first request; later
     * ones reuse its data and ACL (the ACL provider is asked once per lock object), which keeps the builder's cost off
     * every acquire. Only those two references are kept, not the request: the client's default data and the
     * provider's ACL list are shared objects, so a lock object keeps no copy of them.
     */
    CreateRequest createRequest(String name, CreateMode mode) {
        List<ACL> acl = nodeAcl;
        if (acl == null) {
            CreateRequest first = curatorCreateRequest(name, mode);
            nodeData = first.getData();
            nodeAcl = first.getAcl();
            return first;
        }
        return new CreateRequest(ZKPaths.makePath(fixedPath, name), nodeData, acl, mode.toFlag());
    }

    private CreateRequest curatorCreateRequest(String name, CreateMode mode) {
        try {
            String nodePath = ZKPaths.makePath(path, name);
            var builder = client.transactionOp().create().withMode(mode);
            CuratorOp op = data == null ? builder.forPath(nodePath) : builder.forPath(nodePath, data);
            return (CreateRequest) op.get().toRequestRecord();
        } catch (Exception e) {
            throw failure("prepare the create of a lock node", e, true);
        }
    }

    /** Waits until the client is connected or the deadline passes; returns the session, or null at the deadline. */
    ZkSession connectedSession(Deadline deadline) throws InterruptedException {
        while (true) {
            Checks.requireStarted(client, path);
            if (client.getZookeeperClient().isConnected()) {
                ZkSession session = ZkSession.current(client);
                if (session != null) {
                    return session;
                }
            }
            if (deadline.hasPassed()) {
                return null;
            }
            // Bounded slices, so that a client closed meanwhile is noticed rather than waited on forever.
            long sliceMillis = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()), 1000));
            client.blockUntilConnected((int) sliceMillis, TimeUnit.MILLISECONDS);
        }
    }

    String fixed(String namespaceRelativePath) {
        return ZKPaths.fixForNamespace(client.getNamespace(), namespaceRelativePath);
    }

    /**
     * One request timeout: the longest a request waits for its reply before ZooKeeper's client fails it with a lost
     * connection (two thirds of the session timeout), the most a reply is worth waiting for even near the deadline.
     */
    long requestTimeoutNanos() {
        ZkSession session = currentSessionQuietly();
        return session != null ? session.requestTimeoutNanos() : fallbackRequestTimeoutNanos();
    }

    private long fallbackRequestTimeoutNanos() {
        return TimeUnit.MILLISECONDS.toNanos(client.getZookeeperClient().getConnectionTimeoutMs());
    }

    ZkLockException failure(String action, Exception cause, boolean cleanedUp) {
        KeeperException.Code code = ZkSession.codeOf(cause);
        String reason = code != null ? code.toString() : cause.toString();
        String message = String.format(
                "could not %s for lock '%s': %s (%s)",
                action, path, reason, cleanedUp ? "no node left behind" : "our node is deleted in the background");
        return new ZkLockException(message, path, cleanedUp, code, cause);
    }

    ZkSession currentSessionQuietly() {
        try {
            return ZkSession.current(client);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (IllegalStateException closed) {
            return null;
        }
    }

    CuratorFramework client() {
        return client;
    }

    String path() {
        return path;
    }

    String lockName() {
        return lockName;
    }

    QueueHooks hooks() {
        return hooks;
    }

    void setHooks(QueueHooks hooks) {
        this.hooks = Objects.requireNonNull(hooks, "hooks");
    }

    CompletableFuture<Reply> createOn(ZkSession session, CreateRequest request) {
        return session.create(
                request.getPath(),
                request.getData(),
                request.getAcl(),
                CreateMode.fromFlag(request.getFlags(), CreateMode.EPHEMERAL_SEQUENTIAL));
    }

    /** Waits for the reply to a request until the deadline, but at least one request timeout; null if none came. */
    <T> T awaitReply(CompletableFuture<T> reply, Deadline deadline) throws InterruptedException {
        return deadline.await(reply, requestTimeoutNanos());
    }
}
