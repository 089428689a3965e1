rchar: 97542450181
wchar: 13663
syscr: 744409
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
