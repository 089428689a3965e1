rchar: 27494865834
wchar: 13663
syscr: 6712807
syscw: 5
read_bytes: 4096
write_bytes: 16384
cancelled_write_bytes: 0
