rchar: 20360195047
wchar: 13665
syscr: 4970945
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
