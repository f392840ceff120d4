/**
 * How protocol datagrams travel between region servers: the UDP socket, peer addresses in ZooKeeper, and locating
 * a key's current server. Knows nothing of groups or transactions; calls only {@code gstore-common}, HBase's
 * client and the leaves ({@code metrics}).
 */
package org.gstore.coprocessor.transport;
