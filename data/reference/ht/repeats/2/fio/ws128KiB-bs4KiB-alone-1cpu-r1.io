rchar: 27806563244
wchar: 13663
syscr: 6788905
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
