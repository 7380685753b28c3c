package dev.zklock.recipes.locks;

/** The driver of an exclusive lock: the first node holds; every other node watches the node just before it. */
final class ExclusiveDriver implements LockDriver {
    static final ExclusiveDriver INSTANCE = new ExclusiveDriver();

    private ExclusiveDriver() {}

    @Override
    public LockDecision decide(LockQueueView view) {
        int ourIndex = view.ourIndex();
        return ourIndex == 0
                ? LockDecision.holds()
                : LockDecision.watch(view.children().get(ourIndex - 1));
    }

    @Override
    public String toString() {
        return "LockDriver.exclusive()";
    }
}
