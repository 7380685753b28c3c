package dev.zklock.recipes.locks.engine;

import dev.zklock.recipes.locks.LockState;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule every hold passes before its holder has it, whatever the way it comes: a create's grant (a thread's own
 * node, a cohort leader's, a multi-lock's, a semaphore's leases), a local pass of a cohort's node, a read join, a
 * kept idle node. A hold is admitted only while the client is started and not closed, the connection is up, and the
 * node is ours and HELD. Otherwise:
 *
 * <ul>
 *   <li>the client is closed: the acquire ends with {@link IllegalStateException};
 *   <li>the node is LOST (its session ended, or it was found gone): the hold is not granted, and the acquire queues
 *       again with a new node;
 *   <li>the connection is down, or the node IN_DOUBT: the acquire waits, within its deadline, for the client's
 *       {@link ConnectionTracker} to settle the node (HELD or LOST), as a plain acquire waits for a connection.
 * </ul>
 *
 * <p>Before the rule, a grant waits while this client releases a node beside one of its nodes made by the same session
 * ({@link ReleasesInFlight}): a courtesy that keeps a hand-off among threads of one client after the releasing thread's
 * delete has its reply, at most one request timeout.
 *
 * <p>The check reads local state only: no ZooKeeper call. The waiting forms wait on the tracker's change future, so a
 * blocking form parks its thread and an asynchronous form holds no thread. Stateless.
 */
public final class Admission {
    private static final Logger logger = LoggerFactory.getLogger(Admission.class);

    /** What the rule says of a hold now. */
    public enum Verdict {
        /** The hold may be granted. */
        ADMIT,
        /** Not now: the connection is down or the node in doubt; at the end of a wait, the deadline passed. */
        WAIT,
        /** The client is not started, or closed. */
        CLOSED,
        /** The node is gone: its session ended, or it was found deleted. */
        LOST
    }

    private Admission() {}

    /** The rule: what a hold of {@code node}, a node this client tracks, may do now. */
    public static Verdict of(LockNode node) {
        ClientPort client = node.queue().port();
        boolean started = client.isStarted();
        LockState state = node.isDeletedOutside() ? LockState.LOST : node.observedState(); // its watch saw it go
        if (state == LockState.HELD && voucherFailed(node)) {
            state = LockState.IN_DOUBT;
        }
        return decide(started, started && client.isConnected(), state);
    }

    /**
     * Tells whether {@code node}, waited for by its voucher ({@link #afterVouchers}), had that read fail: its standing
     * is unknown until the client's tracker checks the session's nodes after a reconnect (which sets a new voucher).
     * The read's failure is handed over before the client says its connection dropped, when the client still reads
     * as connected: judged on that, a node a stranger deleted was admitted beside the session that took its queue
     * (the simulator's seed 554152, `zklock torture --simulate`).
     */
    private static boolean voucherFailed(LockNode node) {
        OwnNodeWatch watch = node.isSeenBeforeAWait() ? node.ownWatch() : null;
        return watch != null && watch.status() == OwnNodeWatch.Status.FAILED;
    }

    /**
     * The rule itself, on what it reads: whether the client is started and not closed, whether it is connected, and the
     * node's state as its tracker keeps it. Pure.
     */
    public static Verdict decide(boolean started, boolean connected, LockState state) {
        if (!started) {
            return Verdict.CLOSED;
        }
        if (state == LockState.LOST) {
            return Verdict.LOST;
        }
        if (state != LockState.HELD || !connected) {
            return Verdict.WAIT;
        }
        return Verdict.ADMIT;
    }

    /** The rule for several nodes granted as one (a multi-lock, a semaphore's leases): the worst of their verdicts. */
    public static Verdict of(List<LockNode> nodes) {
        Verdict worst = Verdict.ADMIT;
        for (LockNode node : nodes) {
            worst = worse(worst, of(node));
        }
        return worst;
    }

    /** Returns the worse of two verdicts, as several nodes granted as one are judged. */
    public static Verdict worse(Verdict one, Verdict other) {
        return other.ordinal() > one.ordinal() ? other : one;
    }

    /**
     * Waits on the calling thread until the rule says other than WAIT for {@code nodes}, or the deadline passes (then
     * WAIT). A passed deadline makes one check.
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public static Verdict await(List<LockNode> nodes, Deadline deadline) throws InterruptedException {
        Verdict now = of(nodes);
        if (now != Verdict.WAIT || deadline.hasPassed()) {
            return now; // the common case: decided with no lock taken
        }
        ConnectionTracker tracker = nodes.get(0).queue().context().tracker();
        while (true) {
            CompletableFuture<Void> change = tracker.nextChange();
            Verdict verdict = of(nodes);
            if (verdict != Verdict.WAIT || deadline.hasPassed()) {
                return verdict;
            }
            deadline.await(change, 0);
        }
    }

    /**
     * As {@link #await}, with no thread waiting: the future completes on the thread that changes the state (Curator's
     * connection-state thread, the common pool, or the client's timer at the deadline).
     */
    public static CompletableFuture<Verdict> whenDecided(List<LockNode> nodes, Deadline deadline) {
        CompletableFuture<Verdict> decided = new CompletableFuture<>();
        ClientContext context = nodes.get(0).queue().context();
        if (!deadline.isForever()) {
            Future<?> timer =
                    context.port().timer().schedule(() -> decided.complete(of(nodes)), deadline.remainingNanos());
            if (timer == null) {
                decided.complete(of(nodes)); // the client closed: the check says so
            } else {
                decided.whenComplete((verdict, failure) -> timer.cancel(false));
            }
        }
        check(nodes, deadline, context.tracker(), decided);
        return decided;
    }

    /**
     * How one try takes nodes on the calling thread: the nodes granted, or empty if the deadline passed first. Given
     * the deadline, so that a lock path keeps one take for every acquire of it (a lambda that held the deadline was 24
     * bytes more for each waiting thread).
     */
    @FunctionalInterface
    public interface Take {
        Optional<List<LockNode>> take(Deadline deadline) throws InterruptedException;
    }

    /**
     * Takes nodes with {@code take}, tracks them, and waits for the rule: returns them once admitted; enters again with
     * new nodes while the deadline allows if they were lost; gives up (deleting them) at the deadline. Every blocking
     * grant of a node of its own comes through here.
     *
     * @return the admitted nodes, tracked; or empty if the deadline passed first (nothing is left behind)
     * @throws IllegalStateException if the client is closed
     * @throws InterruptedException if interrupted before it returns, even as the grant came (what was granted is
     *     deleted; the flag is cleared): a caller that takes the interrupt for the end of its acquire never holds
     */
    public static Optional<List<LockNode>> admit(Deadline deadline, Take take) throws InterruptedException {
        boolean first = FirstUse.enter(deadline);
        try {
            return admitNow(deadline, take);
        } finally {
            if (first) {
                FirstUse.passed(Thread.currentThread());
            }
        }
    }

    private static Optional<List<LockNode>> admitNow(Deadline deadline, Take take) throws InterruptedException {
        while (true) {
            Optional<List<LockNode>> granted = take.take(deadline);
            if (granted.isEmpty()) {
                return granted;
            }
            List<LockNode> nodes = granted.get();
            nodes.forEach(node -> node.queue().track(node));
            Verdict verdict;
            try {
                awaitReleasesBeside(nodes, deadline);
                awaitVouchers(nodes, deadline);
                awaitLapsed(nodes, deadline);
                verdict = await(nodes, deadline);
            } catch (InterruptedException e) {
                drop(nodes, deadline);
                throw e;
            }
            if (verdict == Verdict.ADMIT) {
                if (Thread.interrupted()) { // interrupted as the grant came: the interrupt wins, as a cohort's does
                    drop(nodes, deadline);
                    throw new InterruptedException(
                            "interrupted while acquiring lock '" + nodes.get(0).lockPath() + "'");
                }
                return granted;
            }
            drop(nodes, deadline);
            if (verdict == Verdict.CLOSED) {
                throw closed(nodes.get(0));
            }
            if (verdict == Verdict.WAIT || deadline.hasPassed()) {
                return Optional.empty();
            }
            logger.warn(
                    "{}: {} lost before it was granted; entering again",
                    nodes.get(0).lockPath(),
                    nodes);
        }
    }

    /**
     * As {@link #admit}, with no thread waiting: {@code take} starts one try, whose future completes with the nodes
     * granted (or fails); the result completes with the admitted nodes, or fails with {@code timedOut}'s exception at
     * the deadline, with {@link IllegalStateException} if the client closed, or with the try's failure. Cancelling the
     * result cancels the try under way and deletes what comes of it.
     */
    public static CompletableFuture<List<LockNode>> admitLater(
            Deadline deadline, Supplier<CompletableFuture<List<LockNode>>> take, Supplier<RuntimeException> timedOut) {
        CompletableFuture<List<LockNode>> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<List<LockNode>>> current = new AtomicReference<>();
        result.whenComplete((nodes, failure) -> {
            CompletableFuture<List<LockNode>> taking = current.get();
            if (result.isCancelled() && taking != null) {
                taking.cancel(false);
            }
        });
        tryLater(deadline, take, timedOut, result, current);
        return result;
    }

    private static void tryLater(
            Deadline deadline,
            Supplier<CompletableFuture<List<LockNode>>> take,
            Supplier<RuntimeException> timedOut,
            CompletableFuture<List<LockNode>> result,
            AtomicReference<CompletableFuture<List<LockNode>>> current) {
        CompletableFuture<List<LockNode>> taking;
        try {
            taking = take.get();
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        current.set(taking);
        if (result.isCancelled()) {
            taking.cancel(false);
        }
        taking.whenComplete((nodes, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure instanceof CompletionException ? failure.getCause() : failure);
                return;
            }
            if (result.isDone()) {
                dropLater(nodes); // cancelled meanwhile
                return;
            }
            nodes.forEach(node -> node.queue().track(node));
            afterReleasesBeside(nodes, deadline)
                    .thenCompose(over -> afterVouchers(nodes))
                    .thenCompose(over -> afterLapsed(nodes))
                    .thenCompose(over -> whenDecided(nodes, deadline))
                    .thenAccept(verdict -> {
                        if (verdict == Verdict.ADMIT) {
                            if (!result.complete(nodes)) {
                                dropLater(nodes); // cancelled while it was being admitted
                            }
                            return;
                        }
                        dropLater(nodes);
                        if (verdict == Verdict.CLOSED) {
                            result.completeExceptionally(closed(nodes.get(0)));
                        } else if (verdict == Verdict.WAIT || deadline.hasPassed()) {
                            result.completeExceptionally(timedOut.get());
                        } else if (!result.isDone()) {
                            logger.warn(
                                    "{}: {} lost before it was granted; entering again",
                                    nodes.get(0).lockPath(),
                                    nodes);
                            tryLater(deadline, take, timedOut, result, current);
                        }
                    });
        });
    }

    /**
     * Completes once this client no longer releases a node beside one of {@code nodes} made by the same session
     * ({@link ReleasesInFlight#afterSiblingsOf}), at once if there is none; at the latest one request timeout after the
     * call, and no later than one request timeout after the deadline, so the acquire keeps its bound.
     */
    private static CompletableFuture<Void> afterReleasesBeside(List<LockNode> nodes, Deadline deadline) {
        CompletableFuture<Void> all = null;
        for (LockNode node : nodes) {
            LockPath queue = node.queue();
            long requestTimeout = queue.requestTimeoutNanos();
            long bound = deadline.isForever()
                    ? requestTimeout
                    : Math.min(requestTimeout, deadline.waitNanos(requestTimeout));
            CompletableFuture<Void> one =
                    queue.context().releases().afterSiblingsOf(node.fixedPath(), node.sessionId(), bound);
            if (!one.isDone()) {
                all = all == null ? one : all.thenCombine(one, (first, second) -> null);
            }
        }
        return all == null ? CompletableFuture.completedFuture(null) : all;
    }

    /**
     * Completes once the own watch of each of {@code nodes} that was last seen before a wait (a multi-lock's node in a
     * queue it held before it waited on another: {@link LockNode#isSeenBeforeAWait()}) has its read's reply, sent when
     * the node was tracked ({@link OwnNodeWatch#vouchHeld}): a node a stranger deleted meanwhile is then known gone,
     * and the rule says LOST, not ADMIT ({@code VoucherGapTest}). A reply always comes (a failed connection fails
     * the read); at once for every other grant.
     */
    private static CompletableFuture<Void> afterVouchers(List<LockNode> nodes) {
        CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
        for (LockNode node : nodes) {
            OwnNodeWatch watch = node.isSeenBeforeAWait() ? node.ownWatch() : null;
            if (watch != null) {
                all = all.thenCombine(watch.whenSettled(), (before, status) -> null);
            }
        }
        return all;
    }

    /**
     * Completes once every one of {@code nodes} whose own watch a data change spent since the grant was decided (a
     * revocation request: {@link LockNode#voucherLapsed}) has a new read's reply ({@link OwnNodeWatch#vouchHeld} sends
     * it if none is on its way), looking again after each wait: a node a stranger deleted after the spend is then known
     * gone, and the rule says LOST, not ADMIT. The simulator's seed 667,261 (with views): a multi-lock waited here for
     * another node's voucher while a revocation request spent this one and a stranger deleted it, and was admitted 1 µs
     * before the new read said NONODE. At once when nothing lapsed, which is every grant but these.
     */
    private static CompletableFuture<Void> afterLapsed(List<LockNode> nodes) {
        CompletableFuture<Void> all = null;
        for (LockNode node : nodes) {
            OwnNodeWatch watch = renewedIfLapsed(node);
            if (watch != null) {
                CompletableFuture<Void> one = watch.whenSettled().thenApply(status -> null);
                all = all == null ? one : all.thenCombine(one, (first, second) -> null);
            }
        }
        return all == null ? CompletableFuture.completedFuture(null) : all.thenCompose(over -> afterLapsed(nodes));
    }

    /** As {@link #afterLapsed}, on the calling thread, each wait at most until the deadline or one request timeout. */
    private static void awaitLapsed(List<LockNode> nodes, Deadline deadline) throws InterruptedException {
        boolean waited = true;
        while (waited) {
            waited = false;
            for (LockNode node : nodes) {
                OwnNodeWatch watch = renewedIfLapsed(node);
                if (watch != null) {
                    watch.settled(deadline);
                    waited = true;
                }
            }
        }
    }

    /** The node's own watch to wait for if its voucher lapsed (a new one set if needed), else null. */
    private static OwnNodeWatch renewedIfLapsed(LockNode node) {
        if (!node.takeVoucherLapsed()) {
            return null;
        }
        OwnNodeWatch.vouchHeld(node); // the watch on its way, or a new read; none for a semaphore's internal mutex
        OwnNodeWatch watch = node.ownWatch();
        return watch != null && watch.status() == OwnNodeWatch.Status.PENDING ? watch : null;
    }

    /** As {@link #afterVouchers}, on the calling thread, waiting at most until the deadline or one request timeout. */
    private static void awaitVouchers(List<LockNode> nodes, Deadline deadline) throws InterruptedException {
        for (LockNode node : nodes) {
            OwnNodeWatch watch = node.isSeenBeforeAWait() ? node.ownWatch() : null;
            if (watch != null) {
                watch.settled(deadline);
            }
        }
    }

    /** As {@link #afterReleasesBeside}, on the calling thread. */
    private static void awaitReleasesBeside(List<LockNode> nodes, Deadline deadline) throws InterruptedException {
        CompletableFuture<Void> over = afterReleasesBeside(nodes, deadline);
        if (over.isDone()) {
            return;
        }
        try {
            Parking.get(over, 2 * nodes.get(0).queue().requestTimeoutNanos());
        } catch (ExecutionException | TimeoutException e) {
            // Completed by the client's timer within one request timeout; if not, the courtesy is not waited for.
        }
    }

    /**
     * Ends holds that were not admitted: stops tracking them and deletes their nodes on the calling thread, waiting for
     * the replies no later than one request timeout after the deadline ({@link Deadline#plusNanos}): the take and the
     * waits before the rule may already have run past the deadline, each within that bound, and a delete given a
     * request timeout of its own from there made the acquire come back past it (the partition rig: four view locks'
     * first acquires on a cold client, 5 to 257 ms past their timeout plus one request timeout).
     */
    private static void drop(List<LockNode> nodes, Deadline deadline) {
        long until = deadline.plusNanos(nodes.get(0).queue().requestTimeoutNanos());
        for (LockNode node : nodes) {
            node.queue().end(node, until);
        }
    }

    /** As {@link #drop}, never blocking. */
    private static void dropLater(List<LockNode> nodes) {
        for (LockNode node : nodes) {
            node.queue().endLater(node);
        }
    }

    /** The exception of an acquire on a closed client, as {@link Checks#requireStarted} makes it. */
    static IllegalStateException closed(LockNode node) {
        LockPath path = node.queue();
        return Checks.notStarted(path.client(), path.path(), null);
    }

    private static void check(
            List<LockNode> nodes, Deadline deadline, ConnectionTracker tracker, CompletableFuture<Verdict> decided) {
        if (decided.isDone()) {
            return;
        }
        CompletableFuture<Void> change = tracker.nextChange();
        Verdict verdict = of(nodes);
        if (verdict != Verdict.WAIT || deadline.hasPassed()) {
            decided.complete(verdict);
            return;
        }
        change.thenRun(() -> check(nodes, deadline, tracker, decided));
    }
}
