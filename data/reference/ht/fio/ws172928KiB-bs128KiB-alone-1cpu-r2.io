rchar: 25853626839
wchar: 5984
syscr: 197437
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
