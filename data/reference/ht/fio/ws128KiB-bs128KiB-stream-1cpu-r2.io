rchar: 103084657103
wchar: 5985
syscr: 786663
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
