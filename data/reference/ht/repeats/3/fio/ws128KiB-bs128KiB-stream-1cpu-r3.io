rchar: 119447727034
wchar: 13670
syscr: 911533
syscw: 5
read_bytes: 0
write_bytes: 49152
cancelled_write_bytes: 0
