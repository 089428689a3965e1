rchar: 21974801357
wchar: 13665
syscr: 5365135
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
