package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.locks.LockState;
import dev.zklock.recipes.locks.LockStateEvent;
import dev.zklock.recipes.test.history.FencedStore;
import dev.zklock.recipes.test.history.FileCounter;
import dev.zklock.recipes.test.history.HistoryWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.curator.framework.state.ConnectionState;

/**
 * One worker thread of a client JVM: until the run stops, acquires its target, works inside, releases, and records
 * every step in the history under its process name ({@code <id>.t<k>}).
 *
 * <p>Inside, a holder in exclusive or write mode reads the key's unfenced counter, pauses, and writes it plus one (two
 * holders inside at once lose an update), then adds one element to the key's fenced set with its token (the store
 * refuses a token older than the newest it took); then it holds for a short random time, releases, and stays outside
 * for another before it acquires again (so a waiter queues behind one node as often as behind several), unless its
 * workload has it come back at once. Hold-state changes of the
 * hold inside are recorded as {@code state} lines, once per change, whichever thread hears them; the worker also asks
 * the hold's state before it records each step inside (the counter, the set, the release), as a careful holder does,
 * and records an answer that differs from the last. Right after a grant it records its client's session ({@code info
 * session <key> <session in hex>}, read locally), which the hold-state checker matches to the session ends the
 * observer sees.
 *
 * <p>{@link #run()} is confined to the worker's thread; {@link #stateChanged} and {@link #connectionChanged} may be
 * called from any thread. Cost: the target's acquire and release, nothing more (the counter and the set are files).
 */
final class Worker implements Runnable {
    static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(2);
    /** The longest a worker holds, unless its workload says otherwise (a leader's term: {@link #MAX_TERM_MS}). */
    static final int MAX_HOLD_MS = 20;
    /**
     * The longest a leadership workload's leader holds its term: longer than a lock's hold, as a leader leads for a
     * while, so that an observer has a change to keep up with every hundred milliseconds or so, not every few.
     */
    static final int MAX_TERM_MS = 200;
    /** The least a leadership workload's leader holds its term: two changes of leader are 100 ms apart at least. */
    static final int MIN_TERM_MS = 100;

    private static final int MAX_COUNTER_PAUSE_MS = 5;
    private static final int MAX_BACKOFF_MS = 50;
    /** The longest a worker stays outside between a release and its next acquire, unless its workload says 0. */
    static final int MAX_OUTSIDE_MS = 20;

    private final String process;
    private final String key;
    private final Mode mode;
    private final Target target;
    private final HistoryWriter history;
    private final FileCounter counter; // null unless the mode is alone inside
    private final FencedStore fenced; // null unless the mode is alone inside
    private final Elements elements;
    private final SplittableRandom random;
    private final BooleanSupplier stop;
    private final LongSupplier session;
    private final int maxOutsideMillis;
    private final int minHoldMillis;
    private final int maxHoldMillis;
    private volatile Inside inside; // the hold in the critical section now, or null

    Worker(
            String process,
            String key,
            Mode mode,
            Target target,
            HistoryWriter history,
            Stores stores,
            SplittableRandom random,
            BooleanSupplier stop,
            LongSupplier session,
            int maxOutsideMillis,
            int minHoldMillis,
            int maxHoldMillis) {
        this.process = process;
        this.key = key;
        this.mode = mode;
        this.target = target;
        this.history = history;
        this.counter = mode.isAlone() ? stores.counter(key) : null;
        this.fenced = mode.isAlone() ? stores.fenced(key) : null;
        this.elements = stores.elements();
        this.random = random;
        this.stop = stop;
        this.session = session;
        this.maxOutsideMillis = maxOutsideMillis;
        this.minHoldMillis = minHoldMillis;
        this.maxHoldMillis = maxHoldMillis;
    }

    @Override
    public void run() {
        try {
            while (!stop.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
                iteration();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeTarget();
        }
    }

    private void closeTarget() {
        try {
            target.close();
        } catch (Exception e) {
            record("info", "close", "-"); // the participant could not withdraw: its session's end will
        }
    }

    /** Hears a state event of the target's lock object: recorded if it is about the hold inside. */
    void stateChanged(LockStateEvent event) {
        Inside now = inside;
        if (now != null && now.held().concerns().test(event)) {
            now.record(event.state());
        }
    }

    /** Hears a connection state of the client: for a target that follows it, SUSPENDED is IN_DOUBT, LOST is LOST. */
    void connectionChanged(ConnectionState state) {
        Inside now = inside;
        if (now == null || !target.followsConnection()) {
            return;
        }
        if (state == ConnectionState.SUSPENDED) {
            now.record(LockState.IN_DOUBT);
        } else if (state == ConnectionState.LOST) {
            now.record(LockState.LOST);
        }
    }

    private void iteration() throws InterruptedException {
        record("invoke", "acquire", mode.spelling());
        Optional<Target.Held> held;
        try {
            held = target.acquire(ACQUIRE_TIMEOUT);
        } catch (InterruptedException e) {
            record("info", "acquire", mode.spelling());
            throw e;
        } catch (Exception e) {
            record("info", "acquire", mode.spelling());
            pause(MAX_BACKOFF_MS);
            return;
        }
        if (held.isEmpty()) {
            record("fail", "acquire", mode.spelling());
            return;
        }
        Inside now = new Inside(held.get());
        record("info", "session", Long.toHexString(session.getAsLong()));
        record("ok", "acquire", mode.spelling() + " " + now.held().tokenSpelling());
        inside = now; // after the grant's line, so that no state line comes before it
        now.poll(); // a change heard before the hold was known
        try {
            if (mode.isAlone()) {
                count();
                add(now.held());
            }
            TimeUnit.MILLISECONDS.sleep(minHoldMillis); // the work's own time, as pause's
            pause(maxHoldMillis - minHoldMillis);
        } finally {
            release(now);
        }
        pause(maxOutsideMillis); // outside for a while: queues of every length, one node ahead of a waiter as often
        // as two
    }

    private void count() throws InterruptedException {
        record("invoke", "counter", "-");
        try {
            long read = counter.read();
            pause(MAX_COUNTER_PAUSE_MS);
            counter.write(read + 1);
            record("ok", "counter", read + " " + (read + 1));
        } catch (RuntimeException e) {
            record("info", "counter", "-");
        }
    }

    private void add(Target.Held held) {
        if (held.token().isEmpty()) {
            return; // no token to fence with (Curator's node could not be read): the set is not written
        }
        String element = elements.next();
        long token = held.token().getAsLong();
        record("invoke", "add", element + " " + token);
        try {
            boolean taken = fenced.add(element, token);
            record(taken ? "ok" : "fail", "add", element + " " + token);
        } catch (RuntimeException e) {
            record("info", "add", element + " " + token);
        }
    }

    private void release(Inside now) {
        record("invoke", "release", mode.spelling());
        String outcome = "ok";
        try {
            now.held().release().release();
        } catch (InterruptedException e) {
            outcome = "info";
            Thread.currentThread().interrupt(); // the run is being stopped: the loop ends after this iteration
        } catch (Exception e) {
            outcome = "info";
        } finally {
            inside = null;
            now.end(outcome);
        }
    }

    private void pause(int maxMillis) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(random.nextInt(maxMillis + 1)); // the work's own time: nothing is awaited
    }

    /**
     * Records a step; inside a hold, the hold's state is asked first (as a careful holder asks before it acts), and
     * recorded if it changed, so that no step of a holder is written after a change it could have read.
     */
    private void record(String type, String f, String value) {
        Inside now = inside;
        if (now != null) {
            now.poll();
        }
        history.record(process, type, f, key, value);
    }

    /**
     * The hold inside, and the state last recorded for it (HELD at the grant). Its state lines and the release's
     * outcome are recorded under its lock, so that no state line follows the outcome.
     */
    private final class Inside {
        private final Target.Held held;
        private LockState last = LockState.HELD; // guarded by this
        private boolean ended; // guarded by this

        Inside(Target.Held held) {
            this.held = held;
        }

        Target.Held held() {
            return held;
        }

        synchronized void end(String outcome) {
            ended = true;
            history.record(process, outcome, "release", key, mode.spelling());
        }

        /** Asks the hold's state, as a holder asks before it acts, and records it if it changed. */
        void poll() {
            held.state().get().ifPresent(this::record);
        }

        synchronized void record(LockState state) {
            if (!ended && state != last) {
                last = state;
                history.record(process, "ok", "state", key, state.name());
            }
        }
    }

    /** The elements of the fenced sets of one client JVM: {@code <id>-<n>}, unique in the run. */
    static final class Elements {
        private final String id;
        private final AtomicLong next = new AtomicLong();

        Elements(String id) {
            this.id = id;
        }

        String next() {
            return id + "-" + next.incrementAndGet();
        }
    }
}
