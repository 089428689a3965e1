rchar: 24598141933
wchar: 13664
syscr: 6005600
syscw: 5
read_bytes: 4096
write_bytes: 24576
cancelled_write_bytes: 0
