rchar: 27442424787
wchar: 13664
syscr: 6700004
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
