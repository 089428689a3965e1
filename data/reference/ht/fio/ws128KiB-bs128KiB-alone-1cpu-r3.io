rchar: 123445947385
wchar: 13671
syscr: 942038
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
