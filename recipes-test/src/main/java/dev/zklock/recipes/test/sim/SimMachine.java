package dev.zklock.recipes.test.sim;

import dev.zklock.recipes.locks.engine.Acquisition;
import dev.zklock.recipes.locks.engine.Command;
import dev.zklock.recipes.locks.engine.Event;
import dev.zklock.recipes.locks.engine.LockNode;
import dev.zklock.recipes.locks.engine.LockPath;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The engine machine a {@link SimAcquisition} drives, a queue's {@link Acquisition}, seen through the operations it
 * uses. Immutable; the machine behind it is not thread-safe.
 */
record SimMachine(
        Supplier<Command> starts,
        Function<Event, Command> answers,
        Function<RuntimeException, Command> abandons,
        BooleanSupplier over,
        BooleanSupplier entering,
        Predicate<String> listsBehind,
        IntFunction<LockNode> ourNodes) {
    /** A new acquisition of {@code queues}; {@code beside}: the write node that a downgrade ranks with, or null. */
    static SimMachine queue(List<LockPath> queues, LockNode beside) {
        Acquisition acquisition = new Acquisition(
                queues,
                beside == null
                        ? null
                        : new Acquisition.Beside(
                                beside.name().substring(beside.name().length() - 10), beside.sessionId()));
        return new SimMachine(
                acquisition::start,
                acquisition::on,
                acquisition::abandon,
                acquisition::isOver,
                () -> acquisition.phase() == Acquisition.Phase.ENTERING,
                acquisition::listsBehindCreate,
                acquisition::ourLockNode);
    }

    Command start() {
        return starts.get();
    }

    Command on(Event event) {
        return answers.apply(event);
    }

    Command abandon(RuntimeException failure) {
        return abandons.apply(failure);
    }

    boolean isOver() {
        return over.getAsBoolean();
    }

    boolean isEntering() {
        return entering.getAsBoolean();
    }

    /** Our node in queue {@code queue}, once entered. */
    LockNode ourNode(int queue) {
        return ourNodes.apply(queue);
    }

    /** As {@code Acquisition.listsBehindCreate}: whether the create just sent has the listing behind it. */
    boolean listsBehindCreate(String ownAhead) {
        return listsBehind.test(ownAhead);
    }
}
