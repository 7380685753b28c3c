package dev.zklock.recipes.test.partition;

/** How a cut treats what a node sends to the address cut off: dropped in silence, or refused at once. Immutable. */
public enum Route {
    /** A {@code blackhole} route: packets vanish, connects time out. */
    BLACKHOLE("blackhole"),
    /** A {@code prohibit} route: the sender gets an ICMP error at once, connects are refused. */
    PROHIBIT("prohibit");

    private final String type;

    Route(String type) {
        this.type = type;
    }

    /** Returns the route type as {@code ip route} names it. */
    public String type() {
        return type;
    }
}
