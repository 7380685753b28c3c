package dev.zklock.recipes.leader;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LeaderLatchListener}s of one latch, each with the executor that runs it: adding one twice is a no-op, as
 * with Curator. A listener with no executor runs on the thread that tells (the latch's own); one that throws is logged
 * and the others are told still. Safe for use by multiple threads.
 */
final class LatchListeners {
    private static final Logger logger = LoggerFactory.getLogger(LatchListeners.class);

    private record Entry(LeaderLatchListener listener, Executor executor) {}

    private final String path;
    private final List<Entry> entries = new CopyOnWriteArrayList<>();

    LatchListeners(String path) {
        this.path = path;
    }

    /** @param executor runs the listener, or null for the telling thread */
    synchronized void add(LeaderLatchListener listener, Executor executor) {
        Objects.requireNonNull(listener, "listener");
        if (entries.stream().noneMatch(entry -> entry.listener() == listener)) {
            entries.add(new Entry(listener, executor));
        }
    }

    synchronized void remove(LeaderLatchListener listener) {
        Objects.requireNonNull(listener, "listener");
        entries.removeIf(entry -> entry.listener() == listener);
    }

    void clear() {
        entries.clear();
    }

    /** Tells {@code isLeader}, then a {@link LeaderTermListener}'s {@code granted(epoch)} in the same call. */
    void isLeader(long epoch) {
        tell("isLeader", listener -> {
            listener.isLeader();
            if (listener instanceof LeaderTermListener terms) {
                terms.granted(epoch);
            }
        });
    }

    /** Tells {@code notLeader}, then a {@link LeaderTermListener}'s {@code revoked(epoch, why)} in the same call. */
    void notLeader(long epoch, TermEnd why) {
        tell("notLeader", listener -> {
            listener.notLeader();
            if (listener instanceof LeaderTermListener terms) {
                terms.revoked(epoch, why);
            }
        });
    }

    private void tell(String what, Consumer<LeaderLatchListener> call) {
        for (Entry entry : entries) {
            Runnable task = () -> {
                try {
                    call.accept(entry.listener());
                } catch (RuntimeException e) {
                    logger.warn("{}: leader latch listener {} threw on {}", path, entry.listener(), what, e);
                }
            };
            if (entry.executor() == null) {
                task.run();
                continue;
            }
            try {
                entry.executor().execute(task);
            } catch (RejectedExecutionException e) {
                logger.warn("{}: the executor of leader latch listener {} refused {}", path, entry.listener(), what, e);
            }
        }
    }
}
