package dev.zklock.recipes.test.partition;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The network of one run: a namespace {@code <id>-br} holding the bridge {@code br0}, and one namespace per node
 * ({@code <id>-s1}, {@code <id>-c1}, {@code <id>-obs}) with {@code lo} up and {@code eth0}, one end of a veth pair whose
 * other end ({@code <id>-<node>}) is a port of the bridge. Addresses are in 198.18.0.0/24, only inside the run's
 * namespaces; no namespace has a default route. Cuts are routes in a node's namespace: {@code blackhole} drops what the
 * node sends to an address silently, {@code prohibit} refuses it. Safe for use by multiple threads (every change is one
 * {@code ip} command; the set of namespaces is guarded by the instance).
 */
final class RigNetwork {
    static final String SUBNET_PREFIX = "198.18.0.";

    private final String runId;
    private final Set<String> namespaces = new LinkedHashSet<>(); // guarded by this

    RigNetwork(String runId) {
        this.runId = runId;
    }

    /** Returns the namespace of {@code node} ({@code s1}, {@code c2}, {@code obs}, {@code br}). */
    String namespace(String node) {
        return runId + "-" + node;
    }

    /** Makes the bridge's namespace and the bridge. */
    void createBridge() {
        String bridge = addNamespace("br");
        ip("-n", bridge, "link", "add", "br0", "type", "bridge");
        ip("-n", bridge, "link", "set", "br0", "up");
    }

    /** Makes {@code node}'s namespace, its veth pair on the bridge, and gives {@code eth0} the node's address. */
    void addNode(String node, String address) {
        String ns = addNamespace(node);
        String port = namespace(node);
        String bridge = namespace("br");
        ip("link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port, "netns", bridge);
        ip("-n", ns, "addr", "add", address + "/24", "dev", "eth0");
        ip("-n", ns, "link", "set", "eth0", "up");
        ip("-n", bridge, "link", "set", port, "master", "br0");
        ip("-n", bridge, "link", "set", port, "up");
    }

    /**
     * Adds a route of {@code type} ({@code blackhole} or {@code prohibit}) in {@code node}'s namespace to {@code
     * address}: what the node sends there is dropped or refused from now on.
     */
    void addRoute(String node, String type, String address) {
        ip("-n", namespace(node), "route", "add", type, address + "/32");
    }

    /** Removes the route {@link #addRoute} added. */
    void removeRoute(String node, String type, String address) {
        ip("-n", namespace(node), "route", "del", type, address + "/32");
    }

    /** Returns the routes of {@code node}'s namespace, one per line, as {@code ip route} prints them. */
    String routes(String node) {
        return Commands.run(List.of("ip", "-n", namespace(node), "route"));
    }

    /** Deletes every namespace this network made, killing what still runs in them; safe to call again. */
    synchronized void deleteAll() {
        for (String ns : new ArrayList<>(namespaces)) {
            Namespaces.delete(ns);
            namespaces.remove(ns);
        }
    }

    private synchronized String addNamespace(String node) {
        String ns = namespace(node);
        ip("netns", "add", ns);
        namespaces.add(ns);
        ip("-n", ns, "link", "set", "lo", "up");
        return ns;
    }

    private static void ip(String... args) {
        List<String> command = new ArrayList<>(args.length + 1);
        command.add("ip");
        command.addAll(List.of(args));
        Commands.run(command);
    }
}
