package dev.zklock.cli.demo;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/** Who made a lock node, read from the node's data (the demo's clients write their names there). */
final class NodeOwners {
    private NodeOwners() {}

    static String of(CuratorFramework client, String node) throws Exception {
        try {
            return new String(client.getData().forPath(node), StandardCharsets.UTF_8);
        } catch (KeeperException.NoNodeException gone) {
            return "(" + ZKPaths.getNodeFromPath(node) + ", gone)";
        }
    }
}
