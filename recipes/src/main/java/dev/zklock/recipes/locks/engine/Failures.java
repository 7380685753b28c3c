package dev.zklock.recipes.locks.engine;

/**
 * The failures of a step that goes on past them (releasing several locks, deleting several nodes): the first is the
 * one thrown, the others ride on it as suppressed. Confined to one thread.
 */
public final class Failures {
    private RuntimeException first;

    public void add(RuntimeException failure) {
        if (first == null) {
            first = failure;
        } else {
            first.addSuppressed(failure);
        }
    }

    /** Throws the first failure, with the others suppressed, if there was any. */
    public void throwIfAny() {
        if (first != null) {
            throw first;
        }
    }
}
