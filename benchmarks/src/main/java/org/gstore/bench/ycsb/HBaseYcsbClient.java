package org.gstore.bench.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The plain-HBase baseline: YCSB operations as single-row HBase calls, so G-Store and HBase run through the same
 * harness. {@code -db org.gstore.bench.ycsb.HBaseYcsbClient -p columnfamily=family [-p hbase.conf=hbase-site.xml]}.
 */
public class HBaseYcsbClient extends DB {
  private Connection connection;
  private byte[] family;

  @Override
  public void init() throws DBException {
    family = YcsbSupport.family(getProperties());
    try {
      connection = ConnectionFactory.createConnection(YcsbSupport.hbaseConfiguration(getProperties()));
    } catch (IOException e) {
      throw new DBException("cannot connect to HBase", e);
    }
  }

  @Override
  public void cleanup() throws DBException {
    try {
      connection.close();
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try (Table t = connection.getTable(TableName.valueOf(table))) {
      Result r = t.get(new Get(Bytes.toBytes(key)).addFamily(family));
      if (r.isEmpty()) {
        return Status.NOT_FOUND;
      }
      YcsbSupport.fields(r, family, fields, result);
      return Status.OK;
    } catch (IOException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String table, String startKey, int count, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    try (Table t = connection.getTable(TableName.valueOf(table));
        ResultScanner rs = t.getScanner(new Scan().withStartRow(Bytes.toBytes(startKey)).addFamily(family)
            .setLimit(count))) {
      for (Result r : rs) {
        HashMap<String, ByteIterator> row = new HashMap<>();
        YcsbSupport.fields(r, family, fields, row);
        result.add(row);
      }
      return Status.OK;
    } catch (IOException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    return insert(table, key, values);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    Put put = new Put(Bytes.toBytes(key));
    YcsbSupport.values(values).forEach((q, v) -> put.addColumn(family, q, v));
    try (Table t = connection.getTable(TableName.valueOf(table))) {
      t.put(put);
      return Status.OK;
    } catch (IOException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try (Table t = connection.getTable(TableName.valueOf(table))) {
      t.delete(new Delete(Bytes.toBytes(key)));
      return Status.OK;
    } catch (IOException e) {
      return Status.ERROR;
    }
  }
}
