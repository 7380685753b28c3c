package dev.zklock.cli;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.common.PathUtils;

/**
 * A checked ZooKeeper connect string, {@code host[:port][,host[:port]...][/chroot]}, and the servers it names. The
 * checks are stricter than ZooKeeper's own parser, which turns a bad port into a {@link NumberFormatException} and
 * accepts an empty host: every message here names the connect string and the part that is wrong.
 *
 * <p>An immutable value: safe for use by any thread. Makes no ZooKeeper call.
 *
 * @param text the connect string as given
 * @param servers the servers it names, in order
 */
public record ConnectString(String text, List<Server> servers) {
    private static final int DEFAULT_PORT = 2181;

    /**
     * One server of a connect string.
     *
     * @param host a host name or address (an IPv6 address without its brackets)
     * @param port the client port
     */
    public record Server(String host, int port) {}

    /**
     * Checks and parses {@code text}.
     *
     * @param text the connect string as given
     * @return the connect string and the servers it names
     * @throws IllegalArgumentException naming {@code text} and its bad part if it is not a valid connect string
     */
    public static ConnectString parse(String text) {
        if (text == null || text.isBlank()) {
            throw malformed(String.valueOf(text), "it is empty");
        }
        int slash = text.indexOf('/');
        String hosts = slash < 0 ? text : text.substring(0, slash);
        if (slash >= 0 && text.length() - slash > 1) {
            try {
                PathUtils.validatePath(text.substring(slash));
            } catch (IllegalArgumentException e) {
                throw malformed(text, "chroot '" + text.substring(slash) + "' is not a valid path");
            }
        }
        List<Server> servers = new ArrayList<>();
        for (String part : hosts.split(",", -1)) {
            servers.add(server(text, part));
        }
        return new ConnectString(text, List.copyOf(servers));
    }

    private static Server server(String text, String part) {
        String host = part;
        String port = null;
        if (part.startsWith("[")) {
            int close = part.indexOf(']');
            if (close < 0) {
                throw malformed(text, "'" + part + "' has no closing ']'");
            }
            host = part.substring(1, close);
            String rest = part.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                throw malformed(text, "'" + part + "' has text after ']' that is not a port");
            }
            port = rest.isEmpty() ? null : rest.substring(1);
        } else if (part.indexOf(':') >= 0) {
            host = part.substring(0, part.lastIndexOf(':'));
            port = part.substring(part.lastIndexOf(':') + 1);
        }
        if (!host.matches("[\\w.\\-:]+")) {
            throw malformed(text, "'" + host + "' is not a host name or address");
        }
        return new Server(host, port == null ? DEFAULT_PORT : port(text, port));
    }

    private static int port(String text, String port) {
        if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw malformed(text, "port '" + port + "' is not a number from 1 to 65535");
        }
        return Integer.parseInt(port);
    }

    private static IllegalArgumentException malformed(String text, String why) {
        return new IllegalArgumentException(
                "malformed connect string '" + text + "': " + why + " (expected host:port[,host:port...][/chroot])");
    }

    @Override
    public String toString() {
        return text;
    }
}
