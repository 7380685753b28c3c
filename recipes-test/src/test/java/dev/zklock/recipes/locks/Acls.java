package dev.zklock.recipes.locks;

import java.util.List;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/** ACL providers for tests of lock nodes under ACLs. */
final class Acls {
    /** Gives every node a client makes, container parents included, to the client's credentials alone. */
    static final ACLProvider CREATOR_ONLY = new ACLProvider() {
        @Override
        public List<ACL> getDefaultAcl() {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }

        @Override
        public List<ACL> getAclForPath(String path) {
            return ZooDefs.Ids.CREATOR_ALL_ACL;
        }
    };

    private Acls() {}
}
