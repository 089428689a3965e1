rchar: 10786810821
wchar: 13653
syscr: 10506
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
