package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockDecision;
import dev.zklock.recipes.locks.LockDriver;
import dev.zklock.recipes.locks.LockQueueView;
import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateListener;
import dev.zklock.recipes.locks.ZkLockException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.proto.CreateRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lock path as one lock object of one client uses it: the path and its node layout (lock name, data, ACL), the
 * driver that decides on its queue, the lock object's state listeners, and the client's context; and the steps that
 * begin and end a hold there (acquire, track, release). It holds no per-acquisition state (that lives in
 * {@link Acquisition}); deleting nodes is {@link NodeDeletes}'s. Safe for use by multiple threads.
 *
 * <p>Paths kept here are relative to the client's namespace, as Curator's are; {@link #fixed(String)} prefixes the
 * namespace for the raw requests of {@link ZooKeeperHandle}.
 */
public final class LockPath {
    private static final long RETURN_MARGIN_MS = 1_000;

    private static final Logger logger = LoggerFactory.getLogger(LockPath.class);

    private final CuratorFramework client;
    private final String path;
    private final String lockName;
    private final LockDriver driver;
    private final byte[] data;
    private volatile QueueHooks hooks = QueueHooks.NONE;
    private volatile ClientContext context; // looked up once; a client's context lasts as long as the client
    private volatile String viewRoot; // set once, before first use: requests through the client's queue views
    private final List<LockStateListener> listeners;
    private volatile RevocationWatch revocation; // null: holds are not revocable, and cost no request for it
    private volatile NodeEvents nodeEvents = NodeEvents.NONE; // a cohort's, one per lock object, if it has one
    private volatile byte[] nodeData; // Curator's choice for our nodes' data, taken from its builder on first use
    private volatile List<ACL> nodeAcl; // and the ACL the client's provider gives; then reused
    private final String fixedPath;
    private final String semaphorePath; // the semaphore this is the internal mutex of, listed beside it; or null
    private final QueueRequests alone; // the requests of an acquisition of this path alone, kept: one object fewer each
    private final Admission.Take onCallbacks; // an acquire of this path alone, run on callbacks: kept, as alone is
    private final Admission.Take onThisThread; // ... run by the thread itself

    /** A queue with state listeners of its own; {@code data} as below. */
    public LockPath(CuratorFramework client, String path, String lockName, LockDriver driver, byte[] data) {
        this(client, path, lockName, driver, data, new CopyOnWriteArrayList<>());
    }

    /**
     * @param data the data of each lock node, or null for the client's default data (as Curator's mutex does)
     * @param listeners the state listeners of the lock object, told of every change of a hold's state
     */
    public LockPath(
            CuratorFramework client,
            String path,
            String lockName,
            LockDriver driver,
            byte[] data,
            List<LockStateListener> listeners) {
        this(client, path, lockName, driver, data, listeners, null);
    }

    /** A queue of a client not Curator's: {@code names} names its nodes, {@code context} is the client's. */
    public LockPath(CuratorFramework names, ClientContext context, String path, String lockName, LockDriver driver) {
        this(names, path, lockName, driver, null, new CopyOnWriteArrayList<>(), null);
        this.context = context;
    }

    /**
     * The internal mutex of the semaphore at {@code semaphorePath} of a client not Curator's: {@code names} names its
     * nodes, {@code context} is the client's.
     */
    static LockPath semaphoreMutex(
            CuratorFramework names, ClientContext context, String semaphorePath, String lockName) {
        LockPath made = semaphoreMutex(names, semaphorePath, lockName);
        made.context = context;
        return made;
    }

    /** The internal mutex of the semaphore at {@code semaphorePath}: {@code <semaphorePath>/locks}, guarded. */
    static LockPath semaphoreMutex(CuratorFramework client, String semaphorePath, String lockName) {
        String checked = Checks.lockPath(semaphorePath);
        return new LockPath(
                client,
                ZKPaths.makePath(checked, LeaseQueue.LOCK_PARENT),
                lockName,
                LockDriver.exclusive(),
                null,
                new CopyOnWriteArrayList<>(),
                checked);
    }

    private LockPath(
            CuratorFramework client,
            String path,
            String lockName,
            LockDriver driver,
            byte[] data,
            List<LockStateListener> listeners,
            String semaphorePath) {
        this.semaphorePath = semaphorePath;
        this.client = Objects.requireNonNull(client, "client");
        this.path = Checks.lockPath(path);
        this.lockName = lockName;
        this.driver = Objects.requireNonNull(driver, "driver");
        this.data = data == null ? null : data.clone();
        String fixed = fixed(this.path);
        this.fixedPath = fixed.equals(this.path) ? this.path : fixed; // one string, not two, without a namespace
        this.listeners = listeners;
        this.alone = new QueueRequests(List.of(this));
        this.onCallbacks = until -> new CallbackRunner(alone, until, null).await();
        this.onThisThread = until -> new BlockingRunner(alone.queues(), until, null).run();
        FirstUse.prepare();
    }

    /**
     * Takes a place in the queue and waits for the driver to say it holds the lock, until the deadline; the node is
     * then tracked and admitted ({@link Admission#admit}). A platform thread runs the acquisition itself ({@link
     * BlockingRunner}: it waits for each reply, within a bound); a virtual thread has it run on callbacks and parks
     * once ({@link CallbackRunner#await}), for each park copies its stack to the heap.
     *
     * @return our node, tracked, or empty if the deadline passed first (nothing is left behind)
     */
    public Optional<LockNode> acquire(Deadline deadline) throws InterruptedException {
        checkCanAcquire();
        return Admission.admit(deadline, Parking.drivesAsVirtual() || viewRoot != null ? onCallbacks : onThisThread)
                .map(nodes -> nodes.get(0));
    }

    /**
     * Creates a node that holds at once, ranked with {@code alongside} (it carries that node's sequence and is not
     * sequential), as Curator's read/write lock does when a writer downgrades: the caller holds {@code alongside}. The
     * node is then tracked and admitted.
     *
     * @throws IllegalStateException if the hold of {@code alongside} is lost (then no node is made)
     */
    public Optional<LockNode> acquireAlongside(LockNode alongside, Deadline deadline) throws InterruptedException {
        checkCanAcquire();
        Acquisition.Beside beside =
                new Acquisition.Beside(NodeNames.sequenceKey(alongside.name()), alongside.sessionId());
        return Admission.admit(deadline, until -> {
                    Checks.requireState(
                            alongside.trackedState() != LockState.LOST,
                            "the hold of '%s' that lock '%s' would be taken beside was lost; release it first",
                            alongside.path(),
                            path);
                    return new BlockingRunner(List.of(this), until, beside).run();
                })
                .map(nodes -> nodes.get(0));
    }

    /** Checks, before any ZooKeeper call, that an acquire may start. */
    public void checkCanAcquire() throws InterruptedException {
        requireStarted();
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + path + "'");
        }
    }

    /**
     * Starts the hold of a node just granted: its state is tracked by the client's one connection listener, the
     * client's {@link QueueTails} keeps the node (no copy of its name); a watch on the node itself vouches for it while
     * it is held ({@link OwnNodeWatch#vouchHeld}), but for a semaphore's internal mutex, held only while its lease is
     * taken; and, if the lock was made revocable, its data is watched for revocation requests (one request).
     */
    public LockNode track(LockNode node) {
        context().tracker().track(node);
        context().queueTails().held(fixedPath, node);
        OwnNodeWatch.vouchHeld(node);
        RevocationWatch revocation = this.revocation;
        if (revocation != null) {
            revocation.watch(this, node);
        }
        return node;
    }

    /** Has {@code events} told of the news of this path's nodes (a cohort's own, one per lock object). */
    public void setNodeEvents(NodeEvents events) {
        this.nodeEvents = Objects.requireNonNull(events, "events");
    }

    /** Tells the cohort, if any, that the holds of {@code node} moved to {@code state}. */
    void nodeStateChanged(LockNode node, LockState state) {
        nodeEvents.stateChanged(node, state);
    }

    /** Tells the cohort, if any, that the holders of {@code node} were asked to let go. */
    void revocationRequested(LockNode node) {
        nodeEvents.revocationRequested(node);
    }

    /** Makes every later hold of this path revocable with {@code revocation}, or none with null. */
    public void setRevocation(RevocationWatch revocation) {
        this.revocation = revocation;
    }

    /** Ends a hold: stops tracking it and deletes its node on the calling thread ({@link NodeDeletes#deleteHeld}). */
    public void end(LockNode hold) {
        end(hold, Parking.nanoTime() + requestTimeoutNanos());
    }

    /**
     * Ends a hold as {@link #end(LockNode)} does, waiting for the delete's reply until {@code untilNanos} at the latest
     * (on {@link Parking#nanoTime()}): an acquire that gives up a grant it did not admit passes its own bound, one
     * request timeout after its deadline, so that its return keeps it.
     */
    public void end(LockNode hold, long untilNanos) {
        untrack(hold);
        NodeDeletes.deleteHeld(this, hold, untilNanos);
    }

    /**
     * Ends a hold without waiting: stops tracking it and sends the delete of its node (one request; Curator's
     * guaranteed delete if the connection is down or lost on the way). Never blocks, so it may run on ZooKeeper's event
     * thread or the client's timer.
     */
    public void endLater(LockNode hold) {
        endLater(hold, List.of());
    }

    /**
     * Ends a hold as {@link #endLater(LockNode)} does, in one transaction that first checks that each of {@code
     * mustStand} still stands: nodes this hold let in (a semaphore's leases, granted while its internal mutex was held),
     * so still one request. ZooKeeper answers it before anyone who waits for this hold's node hears of its delete; if
     * another client deleted one of them after the listing that granted it (an operator, a reaper), the transaction
     * deletes nothing, that node is found deleted ({@link LockNode#foundDeleted}: its hold LOST), and only then is
     * this hold's node deleted. So the next holder is let in after the loss was told ({@code StrangerDeleteLeaseTest}).
     * A transaction that fails with the connection falls back to the guaranteed delete, without the check.
     */
    public void endLater(LockNode hold, List<LockNode> mustStand) {
        untrack(hold);
        hooks.beforeRelease(path, hold.name());
        ClientContext ours = context();
        ours.frontNodes().releasing(hold);
        deleting(hold.name());
        SessionPort handle = port().connected();
        if (handle == null) {
            ours.frontNodes().released(hold);
            port().deleteInBackground(this, hold.path());
        } else if (mustStand.isEmpty() || handle.sessionId() != hold.sessionId()) {
            NodeDeletes.deleteReleased(this, handle, hold);
        } else {
            NodeDeletes.deleteReleasedChecking(this, handle, hold, mustStand);
        }
    }

    /**
     * Removes a watch of ours from the server and the client: one request, not waited for. A removal that fails with
     * the connection is sent again once the client is connected on the same session (the watch would otherwise fire
     * once, for nothing, when its node changes); after the session ended there is nothing left to remove. See
     * {@link ZooKeeperHandle#removeWatch} for why never locally alone.
     *
     * @param fixedPath the watched path, fixed for the client's namespace
     * @param children a child watch, else a data watch
     */
    public void removeWatch(SessionPort session, String fixedPath, Watcher watcher, boolean children) {
        session.removeWatch(fixedPath, watcher, children).thenAccept(reply -> {
            if (reply.isRetryable() && reply.code() != KeeperException.Code.SESSIONEXPIRED) {
                context().sessionEnds().onConnectedOrClosed(port(), () -> {
                    SessionPort now = port().connected();
                    if (now != null && now.sessionId() == session.sessionId()) {
                        removeWatch(now, fixedPath, watcher, children);
                    }
                });
            }
        });
    }

    /** The state listeners of the lock object, told of every change of a hold's state. */
    public List<LockStateListener> listeners() {
        return listeners;
    }

    /** Returns the context of the lock's client: hold tracking, metrics, hand-off state, timer. */
    public ClientContext context() {
        ClientContext known = context;
        if (known == null) {
            known = ClientContext.of(client);
            context = known;
        }
        return known;
    }

    /** Checks, through the client's port, that the client is started and not closed ({@link Checks#notStarted}). */
    public void requireStarted() {
        if (!port().isStarted()) {
            throw Checks.notStarted(client, path, null);
        }
    }

    /**
     * The client as the asynchronous runners reach it ({@link ClientContext#port}); with a queue view, through the
     * client's queue views ({@link ClientContext#viewPort}).
     */
    public ClientPort port() {
        String root = viewRoot;
        return root == null ? context().port() : context().viewPort(root == fixedPath ? null : root);
    }

    /**
     * Has this lock's acquisitions list the queue and watch the node ahead, and its holds watch their nodes, through
     * the client's queue views ({@link ViewSession}): no listing and no watch request once the view of the path is
     * kept; every acquisition then runs on callbacks ({@link CallbackRunner}), whatever its thread. Call before first
     * use; the node layout is unchanged. {@code root}: this path (a watch of its own), or its parent (a registry's base
     * path, one watch for every key); IllegalArgumentException otherwise.
     */
    public void useQueueView(String root) {
        boolean parent = root.equals(ZKPaths.getPathAndNode(path).getPath());
        Checks.requireArgument(parent || root.equals(path), "lock '%s': view root '%s' is not its parent", path, root);
        viewRoot = parent ? fixed(root) : fixedPath;
    }

    /** Returns a fresh protected prefix for our next node: {@code _c_<uuid>-<lockName>}. */
    public String newPrefix() {
        return context().ids().newPrefix(lockName);
    }

    public MetricsDispatch metrics() {
        return context().metrics();
    }

    public void untrack(LockNode hold) {
        context().tracker().untrack(hold);
    }

    /** Returns the full paths of the children of the lock path in queue order; one listing. */
    public List<String> participantNodes() throws InterruptedException {
        Checks.requireStarted(client, path);
        List<String> children;
        try {
            children = client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw callFailure("list the queue", e);
        }
        List<String> paths = new ArrayList<>();
        for (String child : driver.sort(children)) {
            paths.add(ZKPaths.makePath(path, child));
        }
        return List.copyOf(paths);
    }

    /** Returns the sorted listing as the driver sees it, and checks what the driver answers. */
    public LockDecision decide(LockQueueView view) {
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

    /** The driver that decides on this path's queue. */
    public LockDriver driver() {
        return driver;
    }

    public LockQueueView view(List<String> children, String ourNode) {
        return LockQueueView.of(path, driver.sort(children), ourNode);
    }

    /**
     * Returns the create request of a lock node named {@code name} (plus a sequence, for a sequential mode), with the
     * namespaced path, the data (ours, or the client's default) and the ACL from the client's {@code ACLProvider}, as
     * Curator's own create makes them: its transaction builder makes the first request, and later ones reuse that
     * data and ACL (shared objects, not copies), which keeps the builder's cost off every acquire.
     */
    public CreateRequest createRequest(String name, CreateMode mode) {
        List<ACL> acl = nodeAcl;
        if (acl == null) {
            CreateRequest first = port().createRequest(this, ZKPaths.makePath(path, name), data, mode);
            nodeData = first.getData();
            nodeAcl = first.getAcl();
            return first;
        }
        return new CreateRequest(ZKPaths.makePath(fixedPath, name), nodeData, acl, mode.toFlag());
    }

    /** Waits until the client is connected or the deadline passes; returns the session, or null at the deadline. */
    public SessionPort connected(Deadline deadline) throws InterruptedException {
        return ConnectionWait.connected(this, deadline);
    }

    /** Returns the path of child {@code name} of this lock path with the client's namespace: a new string. */
    public String fixedChild(String name) {
        return ZKPaths.makePath(fixed(path), name);
    }

    /** Returns {@code namespaceRelativePath} with the client's namespace; for {@link #path()}, its one kept copy. */
    public String fixed(String namespaceRelativePath) {
        if (fixedPath != null && path.equals(namespaceRelativePath)) {
            return fixedPath;
        }
        return ZKPaths.fixForNamespace(client.getNamespace(), namespaceRelativePath);
    }

    /**
     * How long the engine waits for a reply at the end of an acquire or a release, or past an acquire's deadline: one
     * request timeout of the client ({@link ClientPort#requestTimeoutNanos()}) less a margin for handing the answer
     * back (a quarter of it, at most {@value #RETURN_MARGIN_MS} ms), so that an acquire comes back within its timeout
     * plus one request timeout, not at that bound. The partition rig saw a semaphore's come back 0.02 ms past it under
     * load; with a margin of 100 ms, three 1 to 27 ms past it; with a tenth (250 ms at its 4 s session), acquires
     * whose replies came as the ensemble recovered from its leader's isolation, on two processors that seven JVMs
     * shared, 4 to 257 ms past it. A request still without a reply then is left to ZooKeeper's client, which fails it
     * in full time.
     */
    public long requestTimeoutNanos() {
        long full = port().requestTimeoutNanos();
        return full - Math.min(full / 4, TimeUnit.MILLISECONDS.toNanos(RETURN_MARGIN_MS));
    }

    /**
     * The error of a Curator call on this path's client that threw: on a client closed meanwhile (Curator throws its
     * {@code CuratorClosedException}), the {@link IllegalStateException} of an acquire on a closed client, caused by
     * the call's error; otherwise {@link #failure}, with nothing left behind.
     */
    public RuntimeException callFailure(String action, Exception cause) {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            return Checks.notStarted(client, path, cause);
        }
        return failure(action, cause, true);
    }

    public ZkLockException failure(String action, Exception cause, boolean cleanedUp) {
        KeeperException.Code code = ZooKeeperHandle.codeOf(cause);
        String reason = code != null ? code.toString() : cause.toString();
        String message = String.format(
                "could not %s for lock '%s': %s (%s)",
                action, path, reason, cleanedUp ? "no node left behind" : "our node is deleted in the background");
        return new ZkLockException(message, path, cleanedUp, code, cause);
    }

    public CuratorFramework client() {
        return client;
    }

    public String path() {
        return path;
    }

    /**
     * The path of the semaphore whose internal mutex this is, relative to the namespace, or null: its listings list the
     * semaphore's path beside, for {@link LayoutGuard}.
     */
    String semaphorePath() {
        return semaphorePath;
    }

    public String lockName() {
        return lockName;
    }

    public QueueHooks hooks() {
        return hooks;
    }

    public void setHooks(QueueHooks hooks) {
        this.hooks = Objects.requireNonNull(hooks, "hooks");
    }

    /** Tells the client's {@link QueueTails} that node {@code name} of this path goes; call it before its delete. */
    public void deleting(String name) {
        context().queueTails().deleting(fixed(path), name);
    }

    /** Waits for the reply to a request until the deadline, but at least one request timeout; null if none came. */
    public <T> T awaitReply(CompletableFuture<T> reply, Deadline deadline) throws InterruptedException {
        return deadline.await(reply, requestTimeoutNanos());
    }
}
