package dev.zklock.recipes.locks.holds;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kotlin.Unit;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.lincheck.datastructures.DSLThreadScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Model checks {@link HoldCounts} with Lincheck: every interleaving of a few threads that enter (re-enter, or hold for
 * the first time), release and ask whether anybody holds, up to Lincheck's bounds, must give the results of some
 * sequential order of the same calls on a plain map of per-thread counts ({@link Spec}). This covers the hand-over
 * from the first holder's fields to the map of the others and back, and {@code isEmpty}, which a registry reads on its
 * timer thread (through {@code ThreadOwnedLock.isInUse}) while the holders come and go.
 *
 * <p>Besides the scenarios Lincheck draws, one is given by hand: the one in which a first holder leaves, a third thread
 * takes its place and the second leaves, while {@code isEmpty} looks at the fields and then at the map; no holder is
 * ever missing from both at once, so it must say false.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
public final class HoldCountsModelTest {
    private final HoldCounts<String> counts = new HoldCounts<>("/locks/a");

    /** Enters as thread {@code thread}: again if it holds, else its first hold. Returns its hold count. */
    @Operation
    public int enter(@Param(name = "thread") int thread) {
        if (!counts.reenter()) {
            counts.hold("t" + thread);
        }
        return counts.holdCount();
    }

    /** Releases once: what the thread held if this was its last hold, "entered" if it still holds, or "not held". */
    @Operation
    public String release(@Param(name = "thread") int thread) {
        try {
            String held = counts.release();
            return held == null ? "entered" : held;
        } catch (IllegalMonitorStateException e) {
            return "not held";
        }
    }

    /** What the thread holds, or "nothing". */
    @Operation
    public String held(@Param(name = "thread") int thread) {
        String held = counts.heldByCurrentThread();
        return held == null ? "nothing" : held;
    }

    @Operation
    public boolean isEmpty() {
        return counts.isEmpty();
    }

    @Test
    void modelCheck() {
        new ModelCheckingOptions()
                .actorsBefore(0)
                .actorsAfter(0)
                .threads(3)
                .actorsPerThread(3)
                .iterations(5)
                .invocationsPerIteration(150)
                .addCustomScenario(scenario -> {
                    scenario.parallel(parallel -> {
                        parallel.thread(thread -> actors(thread, "enter", 0, "release", 0, "isEmpty"));
                        parallel.thread(thread -> actors(thread, "enter", 1, "release", 1));
                        parallel.thread(thread -> actors(thread, "enter", 2));
                        return Unit.INSTANCE;
                    });
                    return Unit.INSTANCE;
                })
                .sequentialSpecification(Spec.class)
                .check(HoldCountsModelTest.class);
    }

    /** Adds the calls named in {@code calls} to {@code thread}, each name followed by its thread argument, if any. */
    private static Unit actors(DSLThreadScenario thread, Object... calls) {
        for (int i = 0; i < calls.length; i++) {
            String name = (String) calls[i];
            boolean hasThread = i + 1 < calls.length && calls[i + 1] instanceof Integer;
            List<Object> args = hasThread ? List.of(calls[++i]) : List.of();
            thread.add(new Actor(operation(name), args));
        }
        return Unit.INSTANCE;
    }

    private static Method operation(String name) {
        return Arrays.stream(HoldCountsModelTest.class.getMethods())
                .filter(method -> method.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    /** The sequential specification: a count per thread, in a map. */
    public static final class Spec {
        private final Map<Integer, Integer> counts = new HashMap<>();

        public int enter(int thread) {
            return counts.merge(thread, 1, Integer::sum);
        }

        public String release(int thread) {
            Integer count = counts.get(thread);
            if (count == null) {
                return "not held";
            }
            if (count == 1) {
                counts.remove(thread);
                return "t" + thread;
            }
            counts.put(thread, count - 1);
            return "entered";
        }

        public String held(int thread) {
            return counts.containsKey(thread) ? "t" + thread : "nothing";
        }

        public boolean isEmpty() {
            return counts.isEmpty();
        }
    }
}
