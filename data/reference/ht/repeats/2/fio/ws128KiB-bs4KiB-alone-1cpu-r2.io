rchar: 20866615759
wchar: 5979
syscr: 5094562
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
